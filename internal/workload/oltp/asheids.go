package oltp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/engine"
)

// asheBlock is how many fresh ashe identifiers a worker reserves at once.
const asheBlock = 1024

// asheIDs hands out fresh ashe identifiers from blocks reserved in the
// config table's counter (ashe_next), under a row lock: no two workers,
// runs or processes ever get the same identifier, and one that a failed
// insert used is simply skipped.
type asheIDs struct {
	conn      engine.Conn
	next, end uint64
}

func (a *asheIDs) take() (uint64, error) {
	if a.next == a.end {
		if err := a.reserve(); err != nil {
			return 0, fmt.Errorf("reserving ashe identifiers: %w", err)
		}
	}
	id := a.next
	a.next++
	return id, nil
}

func (a *asheIDs) reserve() error {
	ctx := context.Background()
	if err := a.conn.Exec(ctx, "BEGIN"); err != nil {
		return err
	}
	rows, err := a.conn.Query(ctx, "SELECT ashe_next FROM "+encConfigTable+" FOR UPDATE")
	if err == nil && len(rows) != 1 {
		err = fmt.Errorf("%s has %d rows: prepare again", encConfigTable, len(rows))
	}
	var first uint64
	if err == nil {
		first, err = strconv.ParseUint(rows[0][0], 10, 64)
	}
	if err == nil {
		err = a.conn.Exec(ctx, "UPDATE "+encConfigTable+" SET ashe_next = ashe_next + "+strconv.Itoa(asheBlock))
	}
	if err != nil {
		_ = a.conn.Exec(ctx, "ROLLBACK")
		return err
	}
	if err := a.conn.Exec(ctx, "COMMIT"); err != nil {
		return err
	}
	a.next, a.end = first, first+asheBlock
	return nil
}
