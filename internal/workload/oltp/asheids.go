package oltp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/engine"
)

// asheBlock is how many fresh ashe identifiers a worker reserves at once.
const asheBlock = 1024

// freshAsheFrom is the first identifier of a row written after prepare
// (the counter's start). Prepare's rows take identifiers below it (their
// id, or their rank in k), so the OR of a range's identifiers shows
// whether any row in it was written since: one cheap aggregate instead of
// MIN and MAX. Tables prepared before had the counter start just above
// their rows (table size + 1); freshIdentifiers tells them apart.
const freshAsheFrom = 1 << 40

// freshIdentifiers says whether the tables' fresh identifiers start at
// freshAsheFrom: the counter only grows, so once it is there every row a
// writer adds, now or later, has an identifier at or above it.
func freshIdentifiers(ctx context.Context, conn engine.Conn) (bool, error) {
	rows, err := conn.Query(ctx, "SELECT ashe_next FROM "+encConfigTable)
	if err != nil {
		return false, fmt.Errorf("reading the ashe identifier counter: %w", err)
	}
	if len(rows) != 1 {
		return false, fmt.Errorf("%s has %d rows: prepare again", encConfigTable, len(rows))
	}
	next, err := strconv.ParseUint(rows[0][0], 10, 64)
	if err != nil {
		return false, fmt.Errorf("ashe identifier counter %q: %w", rows[0][0], err)
	}
	return next >= freshAsheFrom, nil
}

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
