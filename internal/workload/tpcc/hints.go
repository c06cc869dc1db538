package tpcc

import "sync/atomic"

// deliveredHints hold, per warehouse and district, one more than the
// newest order a committed Delivery of this run took. Orders are delivered
// oldest first and never undelivered, so that is a lower bound of the
// district's oldest undelivered order, and every terminal can start its
// search there instead of from what it alone delivered last: with many
// terminals, its own last delivery is far behind and the search windows
// miss. Only Delivery with an encrypted NO_O_ID touches them, with one
// atomic load per district searched and one per district committed.
type deliveredHints []atomic.Int64

func newDeliveredHints(warehouses int) deliveredHints {
	return make(deliveredHints, warehouses*districts)
}

func (h deliveredHints) at(w, d int64) *atomic.Int64 { return &h[(w-1)*districts+d-1] }

// lowerBound is the district's bound, 0 before any delivery committed.
func (h deliveredHints) lowerBound(w, d int64) int64 { return h.at(w, d).Load() }

// committed records that a Delivery committed order oid of w/d.
func (h deliveredHints) committed(w, d, oid int64) {
	a := h.at(w, d)
	for {
		cur := a.Load()
		if cur > oid || a.CompareAndSwap(cur, oid+1) {
			return
		}
	}
}
