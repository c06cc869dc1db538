package tpcc

import (
	"errors"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// errRollback ends a NewOrder with an unused item (TPC-C 2.4.2.3).
var errRollback = errors.New("unused item")

// newOrder is TPC-C 2.4.2.
func (wk *worker) newOrder() error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w, d := wk.home, in.d
	e, r := enc{k: k}, dec{k: k}
	cid := e.int(s.cID, nil, in.cid)
	if e.err != nil {
		return e.err
	}
	if err := wk.begin(); err != nil {
		return err
	}
	var wTax, dTax, discount, oid int64
	found := false
	err := wk.query(st.noCust, func(v [][]byte) error {
		row := k.key(w, d, in.cid)
		discount = r.money(s.cDiscount, row, v[0])
		_ = r.text(s.cLast, nil, v[1])
		_ = r.text(s.cCredit, k.key(w, d, in.cid), v[2])
		found = true
		return r.err
	}, i64(w), i64(d), cid)
	if err == nil && !found {
		err = errNoRow("customer")
	}
	if err != nil {
		return err
	}
	if err := wk.query(st.noWh, func(v [][]byte) error {
		wTax = r.money(s.wTax, k.key(w), v[0])
		return r.err
	}, i64(w)); err != nil {
		return err
	}
	if err := wk.query(st.noDist, func(v [][]byte) error {
		row := k.key(w, d)
		dTax = r.money(s.dTax, row, v[0])
		oid = r.int(s.dNextOID, k.key(w, d), v[1])
		return r.err
	}, i64(w), i64(d)); err != nil {
		return err
	}
	if oid == 0 {
		return errNoRow("district")
	}
	allLocal := int64(1)
	for _, l := range in.lines {
		if l.supply != w {
			allLocal = 0
		}
	}
	now := time.Now()
	orow := []int64{w, d, oid}
	next := e.int(s.dNextOID, k.key(w, d), oid+1)
	oidArg := e.int(s.oID, nil, oid)
	noArg := e.int(s.noOID, nil, oid)
	entry := e.time(s.oEntryD, k.key(orow...), now)
	olCnt := e.int(s.oOlCnt, k.key(orow...), int64(len(in.lines)))
	local := e.int(s.oAllLocal, k.key(orow...), allLocal)
	// The order's customer is a column of its own (its own associated data).
	ocid := e.int(s.oCID, nil, in.cid)
	if e.err != nil {
		return e.err
	}
	if err := wk.exec(st.noDistUpd, next, i64(w), i64(d)); err != nil {
		return err
	}
	if err := wk.exec(st.noOrder, oidArg, i64(d), i64(w), ocid, entry, olCnt, local); err != nil {
		return err
	}
	if err := wk.exec(st.noNew, noArg, i64(d), i64(w)); err != nil {
		return err
	}
	olArg := e.int(s.olOID, nil, oid)
	if e.err != nil {
		return e.err
	}
	var total int64
	for n, l := range in.lines {
		amount, err := wk.orderLine(oid, int64(n+1), l, olArg)
		if errors.Is(err, errRollback) {
			wk.notes["rollbacks_new_order"]++
			wk.c.Others++
			return wk.st.rollback.Exec(nil)
		}
		if err != nil {
			return err
		}
		total += amount
	}
	// The terminal's total: sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
	_ = float64(total) * (1 - float64(discount)/1e4) * (1 + float64(wTax+dTax)/1e4)
	return wk.commit()
}

// orderLine processes one item of a NewOrder and returns its amount.
func (wk *worker) orderLine(oid, number int64, l line, olArg engine.Arg) (int64, error) {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w, d := wk.home, in.d
	r := dec{k: k}
	var price int64
	var iData string
	found := false
	if err := wk.query(st.noItem, func(v [][]byte) error {
		row := k.key(l.item)
		price = r.money(s.iPrice, row, v[0])
		_ = r.text(s.iName, k.key(l.item), v[1])
		iData = r.text(s.iData, k.key(l.item), v[2])
		found = true
		return r.err
	}, i64(l.item)); err != nil {
		return 0, err
	}
	if !found {
		return 0, errRollback
	}
	var qty, ytd, cnt, remote int64
	var sData, dist string
	found = false
	if err := wk.query(st.noStock[d-1], func(v [][]byte) error {
		qty = r.int(s.sQuantity, k.key(l.supply, l.item), v[0])
		sData = r.text(s.sData, k.key(l.supply, l.item), v[1])
		dist = r.text(s.sDist[d-1], k.key(l.supply, l.item), v[2])
		if len(v) > 3 {
			ytd = r.int(s.sYtd, k.key(l.supply, l.item), v[3])
			cnt = r.int(s.sOrderCnt, k.key(l.supply, l.item), v[4])
			remote = r.int(s.sRemoteCnt, k.key(l.supply, l.item), v[5])
		}
		found = true
		return r.err
	}, i64(l.item), i64(l.supply)); err != nil {
		return 0, err
	}
	if !found {
		return 0, errNoRow("stock")
	}
	newQty := qty - l.qty
	if qty < l.qty+10 {
		newQty += 91
	}
	isRemote := int64(0)
	if l.supply != w {
		isRemote = 1
	}
	// Brand or generic, as the terminal shows it (2.4.3.3).
	_ = strings.Contains(iData, "ORIGINAL") && strings.Contains(sData, "ORIGINAL")
	e := enc{k: k}
	var err error
	if k.on(s.sYtd) {
		srow := []int64{l.supply, l.item}
		err = wk.exec(st.noStockUpd, e.int(s.sQuantity, k.key(srow...), newQty), e.int(s.sYtd, k.key(srow...), ytd+l.qty),
			e.int(s.sOrderCnt, k.key(srow...), cnt+1), e.int(s.sRemoteCnt, k.key(srow...), remote+isRemote), i64(l.item), i64(l.supply))
	} else {
		err = wk.exec(st.noStockUpd, i64(newQty), i64(l.qty), i64(isRemote), i64(l.item), i64(l.supply))
	}
	if err = errors.Join(e.err, err); err != nil {
		return 0, err
	}
	amount := l.qty * price
	lrow := []int64{w, d, oid, number}
	args := []engine.Arg{olArg, i64(d), i64(w), i64(number), i64(l.item), i64(l.supply),
		e.int(s.olQuantity, k.key(lrow...), l.qty), e.money(s.olAmount, k.key(lrow...), amount), e.text(s.olDistInfo, k.key(lrow...), dist)}
	if e.err != nil {
		return 0, e.err
	}
	return amount, wk.exec(st.noLine, args...)
}
