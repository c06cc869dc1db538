package tpcc

import (
	"errors"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// delivery is TPC-C 2.7.4: one outstanding order for each of the ten
// districts, in one database transaction. One exception: with NO_O_ID
// encrypted under an isolation that reads one snapshot per transaction
// (MariaDB's default repeatable read), a district whose oldest order must
// be counted (no lower bound known yet, or both probe windows missed)
// needs a snapshot taken now, so the transaction commits the districts
// before it and a new one starts (2.7.4.2 allows up to ten). A retry
// resumes at the first district not committed.
func (wk *worker) delivery() error {
	now := time.Now()
	wk.taken = [districts + 1]int64{}
	if err := wk.begin(); err != nil {
		return err
	}
	for d := wk.in.delivered + 1; d <= districts; d++ {
		if err := wk.deliverDistrict(d, now); err != nil {
			return err
		}
	}
	if err := wk.commit(); err != nil {
		return err
	}
	wk.publishDelivered()
	return nil
}

// freshSnapshot commits the open Delivery before district d when the
// session reads one snapshot per transaction and earlier districts of the
// transaction took it (d is not the transaction's first, the one after
// those committed), and begins a new one.
func (wk *worker) freshSnapshot(d int64) error {
	if !wk.snapshotPerTx || d == wk.in.delivered+1 {
		return nil
	}
	if err := wk.commit(); err != nil {
		return err
	}
	wk.publishDelivered()
	wk.in.delivered = d - 1
	wk.notes["delivery_split_transactions"]++
	return wk.begin()
}

// publishDelivered tells the run's other terminals which orders the
// transaction just committed delivered.
func (wk *worker) publishDelivered() {
	for d, oid := range wk.taken {
		if oid > 0 {
			wk.w.delivered.committed(wk.home, int64(d), oid)
			wk.taken[d] = 0
		}
	}
}

// deliverDistrict delivers the district's oldest new order, if any.
func (wk *worker) deliverDistrict(d int64, now time.Time) error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w := wk.home
	e, r := enc{k: k}, dec{k: k}
	oid, err := wk.oldestNewOrder(w, d)
	if err != nil {
		return err
	}
	if oid < 0 {
		wk.notes["delivery_skipped_districts"]++
		return nil
	}
	noArg, oidArg, olArg := e.int(s.noOID, nil, oid), e.int(s.oID, nil, oid), e.int(s.olOID, nil, oid)
	if e.err != nil {
		return e.err
	}
	if err := wk.exec(st.dDel, i64(w), i64(d), noArg); err != nil {
		return err
	}
	cid := int64(-1)
	if err := wk.query(st.dOrd, func(v [][]byte) error {
		cid = r.int(s.oCID, nil, v[0])
		return r.err
	}, i64(w), i64(d), oidArg); err != nil {
		return err
	}
	if cid < 0 {
		return errNoRow("orders")
	}
	orow := []int64{w, d, oid}
	if err := wk.exec(st.dOrdUpd, e.int(s.oCarrierID, k.key(orow...), in.carrier), i64(w), i64(d), oidArg); err != nil {
		return errors.Join(e.err, err)
	}
	var total int64
	if k.on(s.olDeliveryD) {
		// The date of line n is argument n-1 (NULL where no line n).
		dates := wk.lineArgs[:0]
		for range maxOrderLines {
			dates = append(dates, engine.Arg{Null: true})
		}
		lines := 0
		if err := wk.query(st.dLines, func(v [][]byte) error {
			n := r.int(s.olNumber, nil, v[0])
			if n < 1 || n > maxOrderLines {
				return fmt.Errorf("order %d/%d/%d has a line numbered %d", w, d, oid, n)
			}
			total += r.money(s.olAmount, k.key(w, d, oid, n), v[1])
			dates[n-1] = e.time(s.olDeliveryD, k.key(w, d, oid, n), now)
			lines++
			return errors.Join(r.err, e.err)
		}, i64(w), i64(d), olArg); err != nil {
			return err
		}
		if lines == 0 {
			return errNoRow("order_line")
		}
		wk.lineArgs = append(dates, i64(w), i64(d), olArg)
		if err := wk.exec(st.dLineUpd, wk.lineArgs...); err != nil {
			return err
		}
	} else {
		if err := wk.exec(st.dLineUpd, e.time(s.olDeliveryD, nil, now), i64(w), i64(d), olArg); err != nil {
			return err
		}
		if err := wk.query(st.dLines, func(v [][]byte) error {
			if v[0] != nil {
				total = r.money(s.olAmount, nil, v[0])
			}
			return r.err
		}, i64(w), i64(d), olArg); err != nil {
			return err
		}
	}
	cidArg := e.int(s.cID, nil, cid)
	crow := []int64{w, d, cid}
	if st.dCust != nil {
		var balance, cnt int64
		if err := wk.query(st.dCust, func(v [][]byte) error {
			balance = r.money(s.cBalance, k.key(crow...), v[0])
			cnt = r.int(s.cDeliveryCnt, k.key(crow...), v[1])
			return r.err
		}, i64(w), i64(d), cidArg); err != nil {
			return errors.Join(e.err, err)
		}
		if err := wk.exec(st.dCustUpd, e.money(s.cBalance, k.key(crow...), balance+total), e.int(s.cDeliveryCnt, k.key(crow...), cnt+1),
			i64(w), i64(d), cidArg); err != nil {
			return errors.Join(e.err, err)
		}
	} else if err := wk.exec(st.dCustUpd, e.money(s.cBalance, nil, total), i64(w), i64(d), cidArg); err != nil {
		return errors.Join(e.err, err)
	}
	return e.err
}

// oldestNewOrder finds and locks the district's oldest undelivered order,
// or returns -1 when there is none. With NO_O_ID encrypted (det: no order),
// it uses TPC-C's own invariant 3.3.2.3 - the undelivered orders are the
// last COUNT(*) before D_NEXT_O_ID - read in one snapshot, then locks the
// first of those ids that still exists: newer orders only come after it, so
// the first one found is the oldest.
func (wk *worker) oldestNewOrder(w, d int64) (int64, error) {
	s, k, st := wk.s, wk.k, &wk.st
	r := dec{k: k}
	if from := max(wk.oldestSeen[d], wk.w.delivered.lowerBound(w, d)); st.dNewLock != nil && from > 0 {
		oid, err := wk.oldestFromWindow(w, d, from)
		if err != nil {
			return -1, err
		}
		if oid > 0 {
			wk.notes["delivery_oldest_by_window"]++
			return oid, nil
		}
		wk.notes["delivery_window_misses"]++
	}
	if st.dNewLock == nil {
		oid := int64(-1)
		err := wk.query(st.dNew, func(v [][]byte) error {
			oid = r.int(s.noOID, nil, v[0])
			return r.err
		}, i64(w), i64(d))
		return oid, err
	}
	if err := wk.freshSnapshot(d); err != nil {
		return -1, err
	}
	var count, next int64
	if err := wk.query(st.dNew, func(v [][]byte) error {
		count = r.count(v[0])
		if count > 0 {
			next = r.int(s.dNextOID, k.key(w, d), v[1])
		}
		return r.err
	}, i64(w), i64(d), i64(w), i64(d)); err != nil {
		return -1, err
	}
	return wk.lockOldest(w, d, next-count, next)
}

// lockOldest locks the first of the district's new orders from..to-1 that
// still exists (a concurrent delivery may have taken the ones before it),
// or returns -1.
func (wk *worker) lockOldest(w, d, from, to int64) (int64, error) {
	s, st := wk.s, &wk.st
	for oid := from; oid < to; oid++ {
		e := enc{k: wk.k}
		found := false
		if err := wk.query(st.dNewLock, func([][]byte) error { found = true; return nil }, i64(w), i64(d), e.int(s.noOID, nil, oid)); err != nil {
			return -1, errors.Join(e.err, err)
		}
		if found {
			wk.oldestSeen[d], wk.taken[d] = oid, oid
			return oid, nil
		}
	}
	return -1, nil
}

// deliveryWindows are how many order ids after the lower bound the probes
// ask for: the run's bound lags the oldest by about the deliveries in
// flight, which the first window covers; the second is for a bound that
// lags more (a terminal's own, before any delivery of the run committed).
var deliveryWindows = [...]int64{8, 32}

// oldestFromWindow finds the district's oldest new order without counting
// the district's new orders, from a lower bound of the oldest: the oldest
// this terminal saw before, or one past the newest any terminal of the run
// delivered. Orders are delivered oldest first and new ones get higher
// ids, and a delivery that rolled back leaves its order the oldest.
// Undelivered orders are contiguous (3.3.2.3), so the first id of a window
// that exists is the oldest. It returns -1 when every id of the windows
// was delivered since; the caller then counts.
func (wk *worker) oldestFromWindow(w, d, from int64) (int64, error) {
	s := wk.s
	for i, n := range deliveryWindows {
		e := enc{k: wk.k}
		wk.args = wk.args[:0]
		for id := from; id < from+n; id++ {
			wk.args = append(wk.args, i64(w), i64(d), e.int(s.noOID, nil, id))
		}
		if e.err != nil {
			return -1, e.err
		}
		first := int64(-1)
		if err := wk.query(wk.st.dNewWindow[i], func(v [][]byte) error {
			for j, x := range v {
				if x != nil {
					first = from + int64(j)
					break
				}
			}
			return nil
		}, wk.args...); err != nil {
			return -1, err
		}
		if first >= 0 {
			return wk.lockOldest(w, d, first, from+n)
		}
		from += n
	}
	return -1, nil
}
