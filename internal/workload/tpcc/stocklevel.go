package tpcc

import (
	"slices"

	"github.com/encbench/encbench/internal/engine"
)

// stockLevel is TPC-C 2.8.2 (read only) for the terminal's own district.
func (wk *worker) stockLevel() error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w, d := wk.home, wk.slDist
	e, r := enc{k: k}, dec{k: k}
	if err := wk.begin(); err != nil {
		return err
	}
	next := int64(-1)
	if err := wk.query(st.slDist, func(v [][]byte) error {
		next = r.int(s.dNextOID, k.key(w, d), v[0])
		return r.err
	}, i64(w), i64(d)); err != nil {
		return err
	}
	if next < 0 {
		return errNoRow("district")
	}
	args := append(wk.args[:0], i64(w), i64(d))
	if k.on(s.olOID) {
		// The window of order numbers, each encrypted for equality.
		for o := next - slOrders; o < next; o++ {
			args = append(args, e.int(s.olOID, nil, o))
		}
		slices.SortFunc(args[2:], engine.ByBytes)
	} else {
		args = append(args, i64(next), i64(next-slOrders))
	}
	args = append(args, i64(w))
	if !k.on(s.sQuantity) {
		args = append(args, i64(in.threshold)) // the server compares
	}
	wk.args = args
	if e.err != nil {
		return e.err
	}
	var low int64
	if k.on(s.sQuantity) {
		seen := wk.lowSeen
		clear(seen)
		if err := wk.query(st.slCount, func(v [][]byte) error {
			item := r.int(s.sIID, nil, v[0])
			if !seen[item] && r.int(s.sQuantity, k.key(w, item), v[1]) < in.threshold {
				low++
			}
			seen[item] = true
			return r.err
		}, args...); err != nil {
			return err
		}
	} else if err := wk.query(st.slCount, func(v [][]byte) error {
		low = r.count(v[0])
		return r.err
	}, args...); err != nil {
		return err
	}
	_ = low
	return wk.commit()
}
