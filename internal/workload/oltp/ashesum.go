package oltp

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/encryption/colenc"
)

// scatteredSkip is how many range sums of a table go straight to the
// identifier list after the one-aggregate query found the identifiers
// scattered (rows a write mix reinserted): that query then costs a
// second round trip and scan each time, while on tables as loaded it is
// the whole answer.
const scatteredSkip = 16

// asheSum decrypts the server's sum of k over the range from..to. The
// first query (sumRun) returns the sum, the row count and what shows
// whether the identifiers are one run (oneRun); one run settles it with
// two PRF calls. Otherwise the sum comes with every identifier, the
// client forms the runs, and each costs two PRF calls.
func (wk *encWorker) asheSum(tb *encTable, from, to int64) (int64, error) {
	if tb.sumRun == nil || tb.scattered > 0 {
		tb.scattered = max(0, tb.scattered-1)
		return wk.asheListSum(tb)
	}
	var sum, n uint64
	var idCols [2]uint64
	found := false
	err := tb.sumRun.Query(wk.args, func(v [][]byte) error {
		if len(v[0]) == 0 { // no row in the range: SUM is NULL
			return nil
		}
		var ok bool
		sum, ok = colenc.SumMod64(v[0])
		var err error
		if n, err = strconv.ParseUint(string(v[1]), 10, 64); err != nil {
			ok = false
		}
		for i, b := range v[2:] {
			if idCols[i], err = strconv.ParseUint(string(b), 10, 64); err != nil {
				ok = false
			}
		}
		if !ok {
			return fmt.Errorf("ashe sum %q: count and identifiers %q", v[0], v[1:])
		}
		found = true
		return nil
	})
	if err != nil || !found {
		return 0, err
	}
	run, ok := wk.oneRun(tb, n, idCols, from, to)
	if !ok {
		tb.scattered = scatteredSkip
		return wk.asheListSum(tb)
	}
	wk.asheRuns = append(wk.asheRuns[:0], run)
	return tb.enc.asheField().AsheDecryptSum64(sum, wk.asheRuns)
}

// oneRun is the run of identifiers sumRun's n rows have, if they form one.
// runIsIDs: prepare's rows have their id as identifier, so every id of
// from..min(to, table size) present and the OR of the identifiers below
// freshAsheFrom (no row written since prepare) make them the run. Else
// MIN and MAX of the identifiers n-1 apart.
func (wk *encWorker) oneRun(tb *encTable, n uint64, idCols [2]uint64, from, to int64) (colenc.IDRange, bool) {
	if tb.runIsIDs {
		to = min(to, int64(wk.o.TableSize))
		or := idCols[0]
		return colenc.IDRange{Lo: uint64(from), Hi: uint64(to)}, or < freshAsheFrom && from >= 1 && to >= from && n == uint64(to-from+1)
	}
	lo, hi := idCols[0], idCols[1]
	return colenc.IDRange{Lo: lo, Hi: hi}, hi >= lo && hi-lo+1 == n
}

// asheListSum is the sum over the identifiers the server listed with it.
func (wk *encWorker) asheListSum(tb *encTable) (int64, error) {
	var total uint64
	found := false
	err := tb.read.Query(wk.args, func(v [][]byte) error {
		if len(v[0]) == 0 { // no row in the range
			return nil
		}
		var ok bool
		total, ok = colenc.SumMod64(v[0])
		n, err := strconv.ParseUint(string(v[2]), 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("ashe sum %q, count %q", v[0], v[2])
		}
		if wk.asheList, err = appendIDList(wk.asheList[:0], v[1]); err != nil {
			return err
		}
		// A list the server cut short (GROUP_CONCAT's length limit)
		// would decrypt to garbage: fail instead.
		if uint64(len(wk.asheList)) != n {
			return fmt.Errorf("ashe sum: the server listed %d identifiers for %d rows", len(wk.asheList), n)
		}
		found = true
		return nil
	})
	if err != nil || !found {
		return 0, err
	}
	if wk.asheRuns, err = colenc.AppendRuns(wk.asheRuns[:0], wk.asheList); err != nil {
		return 0, err
	}
	return tb.enc.asheField().AsheDecryptSum64(total, wk.asheRuns)
}

// appendIDList parses a comma-separated list of decimal identifiers.
func appendIDList(dst []uint64, b []byte) ([]uint64, error) {
	for {
		field, rest, more := bytes.Cut(b, []byte{','})
		// strconv refuses signs, spaces, empty fields and overflow; the
		// non-escaping conversion does not allocate.
		id, err := strconv.ParseUint(string(field), 10, 64)
		if err != nil {
			return dst, fmt.Errorf("ashe identifier list %.40q: not a list of 64-bit identifiers", b)
		}
		dst = append(dst, id)
		if !more {
			return dst, nil
		}
		b = rest
	}
}
