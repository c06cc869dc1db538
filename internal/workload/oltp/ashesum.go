package oltp

import (
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

// asheSum decrypts the server's sum of k over a range. The first query
// returns the sum with the smallest and largest identifier and the row
// count: one run of identifiers (rows as prepare loaded them) settles it
// with two PRF calls. Otherwise the sum comes with every identifier, the
// client forms the runs, and each costs two PRF calls.
func (wk *encWorker) asheSum(tb *encTable, from, to int64) (int64, error) {
	if tb.sumRun == nil || tb.scattered > 0 {
		tb.scattered = max(0, tb.scattered-1)
		return wk.asheListSum(tb)
	}
	if tb.runIsIDs {
		return wk.asheIDRunSum(tb, from, to)
	}
	var sum, lo, hi, n uint64
	found := false
	err := tb.sumRun.Query(wk.args, func(v [][]byte) error {
		if len(v[0]) == 0 { // no row in the range: SUM is NULL
			return nil
		}
		var ok bool
		var e1, e2, e3 error
		sum, ok = colenc.SumMod64(v[0])
		lo, e1 = strconv.ParseUint(string(v[1]), 10, 64)
		hi, e2 = strconv.ParseUint(string(v[2]), 10, 64)
		n, e3 = strconv.ParseUint(string(v[3]), 10, 64)
		if !ok || e1 != nil || e2 != nil || e3 != nil {
			return fmt.Errorf("ashe sum %q: identifiers %q..%q, count %q", v[0], v[1], v[2], v[3])
		}
		found = true
		return nil
	})
	if err != nil || !found {
		return 0, err
	}
	if hi >= lo && hi-lo+1 == n {
		wk.asheRuns = append(wk.asheRuns[:0], colenc.IDRange{Lo: lo, Hi: hi})
		return tb.enc.asheField().AsheDecryptSum64(sum, wk.asheRuns)
	}
	tb.scattered = scatteredSkip
	return wk.asheListSum(tb)
}

// asheIDRunSum is asheSum's first query where prepare's rows have their
// id as identifier: every row of ids from..to present (min(to, table
// size)), and none written since (the OR of their identifiers below
// freshAsheFrom), makes them the run from..to.
func (wk *encWorker) asheIDRunSum(tb *encTable, from, to int64) (int64, error) {
	var sum, n, or uint64
	found := false
	err := tb.sumRun.Query(wk.args, func(v [][]byte) error {
		if len(v[0]) == 0 { // no row in the range: SUM is NULL
			return nil
		}
		var ok bool
		var e1, e2 error
		sum, ok = colenc.SumMod64(v[0])
		n, e1 = strconv.ParseUint(string(v[1]), 10, 64)
		or, e2 = strconv.ParseUint(string(v[2]), 10, 64)
		if !ok || e1 != nil || e2 != nil {
			return fmt.Errorf("ashe sum %q: count %q, identifiers' OR %q", v[0], v[1], v[2])
		}
		found = true
		return nil
	})
	if err != nil || !found {
		return 0, err
	}
	to = min(to, int64(wk.o.TableSize))
	if or < freshAsheFrom && from >= 1 && to >= from && n == uint64(to-from+1) {
		wk.asheRuns = append(wk.asheRuns[:0], colenc.IDRange{Lo: uint64(from), Hi: uint64(to)})
		return tb.enc.asheField().AsheDecryptSum64(sum, wk.asheRuns)
	}
	tb.scattered = scatteredSkip
	return wk.asheListSum(tb)
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

// appendIDList parses a comma-separated list of decimal identifiers
// without allocating.
func appendIDList(dst []uint64, b []byte) ([]uint64, error) {
	var id uint64
	digits := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == ',' {
			if digits == 0 {
				return dst, fmt.Errorf("ashe identifier list %.40q: an empty entry", b)
			}
			dst = append(dst, id)
			id, digits = 0, 0
			continue
		}
		c := b[i] - '0'
		if c > 9 || digits == 20 || id > (1<<64-1-uint64(c))/10 {
			return dst, fmt.Errorf("ashe identifier list %.40q: not a list of 64-bit identifiers", b)
		}
		id = id*10 + uint64(c)
		digits++
	}
	return dst, nil
}
