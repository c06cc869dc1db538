package oltp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
)

// asheBlock is how many fresh ashe identifiers a worker reserves at once.
const asheBlock = 1024

// freshAsheFrom is the first identifier of a row written after prepare
// (the counter's start). Prepare's rows take identifiers below it (their
// id, or their rank in k), so the OR of a range's identifiers shows
// whether any row in it was written since: one cheap aggregate instead of
// MIN and MAX. It is also the floor the client's ledger holds the
// server's counter to.
const freshAsheFrom = 1 << 40

// asheIDs hands out fresh ashe identifiers from blocks reserved in the
// config table's counter (ashe_next), under a row lock: no two workers,
// runs or processes ever get the same identifier, and one that a failed
// insert used is simply skipped. The client's ledger checks the server's
// counter against what it reserved before, so a server that sets the
// counter back cannot make it reuse one.
type asheIDs struct {
	conn      engine.Conn
	ledger    colenc.Ledger
	dataSet   []byte
	next, end uint64
}

// check refuses, before a run, a server counter set back below the
// ledger's mark.
func (a *asheIDs) check(ctx context.Context) error {
	rows, err := a.conn.Query(ctx, "SELECT ashe_next FROM "+encConfigTable)
	if err != nil {
		return fmt.Errorf("reading the ashe identifier counter: %w", err)
	}
	if len(rows) != 1 {
		return fmt.Errorf("%s has %d rows: prepare again", encConfigTable, len(rows))
	}
	next, err := strconv.ParseUint(rows[0][0], 10, 64)
	if err != nil {
		return fmt.Errorf("ashe identifier counter %q: %w", rows[0][0], err)
	}
	return a.ledger.Check(a.dataSet, next, freshAsheFrom)
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
		err = a.ledger.Reserve(a.dataSet, first, asheBlock, freshAsheFrom)
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
