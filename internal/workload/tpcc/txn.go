package tpcc

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// dec reads result values through the codec, keeping the first error.
type dec struct {
	k   *codec
	err error
}

func (d *dec) int(c *column, row, b []byte) int64 {
	v, err := d.k.GetInt(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) money(c *column, row, b []byte) int64 {
	v, err := d.k.GetDec(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) text(c *column, row, b []byte) string {
	v, err := d.k.GetText(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) time(c *column, row, b []byte) string {
	v, err := d.k.GetTime(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) keep(err error) {
	if d.err == nil {
		d.err = err
	}
}

// enc builds arguments through the codec, keeping the first error.
type enc struct {
	k   *codec
	err error
}

func (e *enc) int(c *column, row []byte, v int64) engine.Arg {
	a, err := e.k.Int(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) money(c *column, row []byte, v int64) engine.Arg {
	a, err := e.k.Dec(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) text(c *column, row []byte, v string) engine.Arg {
	a, err := e.k.Text(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) time(c *column, row []byte, v time.Time) engine.Arg {
	a, err := e.k.Time(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}

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

// customerByName finds the customer in the middle of those with the last
// name, ordered by first name (2.5.2.2); the client sorts when C_FIRST is
// encrypted.
func (wk *worker) customerByName(w, d int64, last string) (int64, error) {
	s, k := wk.s, wk.k
	e, r := enc{k: k}, dec{k: k}
	lastArg := e.text(s.cLast, nil, last)
	if e.err != nil {
		return 0, e.err
	}
	type cust struct {
		id    int64
		first string
	}
	var found []cust
	if err := wk.query(wk.st.pByName, func(v [][]byte) error {
		id := r.int(s.cID, nil, v[0])
		found = append(found, cust{id, r.text(s.cFirst, k.key(w, d, id), v[1])})
		return r.err
	}, i64(w), i64(d), lastArg); err != nil {
		return 0, err
	}
	if len(found) == 0 {
		return 0, errNoRow("customer by last name " + last)
	}
	if k.on(s.cFirst) {
		sort.SliceStable(found, func(i, j int) bool { return found[i].first < found[j].first })
	}
	return found[(len(found)-1)/2].id, nil
}

// payment is TPC-C 2.5.2.
func (wk *worker) payment() error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w, d := wk.home, in.d
	e, r := enc{k: k}, dec{k: k}
	if err := wk.begin(); err != nil {
		return err
	}
	var wName, dName string
	if k.on(s.wYtd) {
		var ytd int64
		if err := wk.query(st.pWh, func(v [][]byte) error {
			wName = wk.address(&r, k.key(w), v, s.wName, s.wStreet1, s.wStreet2, s.wCity, s.wState, s.wZip)
			ytd = r.money(s.wYtd, k.key(w), v[6])
			return r.err
		}, i64(w)); err != nil {
			return err
		}
		if err := wk.exec(st.pWhUpd, e.money(s.wYtd, k.key(w), ytd+in.amount), i64(w)); err != nil {
			return errors.Join(e.err, err)
		}
		if err := wk.query(st.pDist, func(v [][]byte) error {
			dName = wk.address(&r, k.key(w, d), v, s.dName, s.dStreet1, s.dStreet2, s.dCity, s.dState, s.dZip)
			ytd = r.money(s.dYtd, k.key(w, d), v[6])
			return r.err
		}, i64(w), i64(d)); err != nil {
			return err
		}
		if err := wk.exec(st.pDistUpd, e.money(s.dYtd, k.key(w, d), ytd+in.amount), i64(w), i64(d)); err != nil {
			return errors.Join(e.err, err)
		}
	} else {
		amount := e.money(s.wYtd, nil, in.amount)
		if err := wk.exec(st.pWhUpd, amount, i64(w)); err != nil {
			return err
		}
		if err := wk.query(st.pWh, func(v [][]byte) error {
			wName = wk.address(&r, k.key(w), v, s.wName, s.wStreet1, s.wStreet2, s.wCity, s.wState, s.wZip)
			return r.err
		}, i64(w)); err != nil {
			return err
		}
		if err := wk.exec(st.pDistUpd, amount, i64(w), i64(d)); err != nil {
			return err
		}
		if err := wk.query(st.pDist, func(v [][]byte) error {
			dName = wk.address(&r, k.key(w, d), v, s.dName, s.dStreet1, s.dStreet2, s.dCity, s.dState, s.dZip)
			return r.err
		}, i64(w), i64(d)); err != nil {
			return err
		}
	}
	cw, cd, cid := in.cw, in.cd, in.cid
	if in.byName {
		var err error
		if cid, err = wk.customerByName(cw, cd, in.last); err != nil {
			return err
		}
	}
	cidArg := e.int(s.cID, nil, cid)
	if e.err != nil {
		return e.err
	}
	var credit string
	var balance, ytdPay, payCnt int64
	found := false
	if err := wk.query(st.pCust, func(v [][]byte) error {
		row := []int64{cw, cd, cid}
		_ = r.text(s.cFirst, k.key(row...), v[0])
		_ = r.text(s.cMiddle, k.key(row...), v[1])
		_ = r.text(s.cLast, nil, v[2])
		for i, c := range []*column{s.cStreet1, s.cStreet2, s.cCity, s.cState, s.cZip, s.cPhone} {
			_ = r.text(c, k.key(row...), v[3+i])
		}
		_ = r.time(s.cSince, k.key(row...), v[9])
		credit = r.text(s.cCredit, k.key(row...), v[10])
		_ = r.money(s.cCreditLim, k.key(row...), v[11])
		_ = r.money(s.cDiscount, k.key(row...), v[12])
		balance = r.money(s.cBalance, k.key(row...), v[13])
		ytdPay = r.money(s.cYtdPayment, k.key(row...), v[14])
		payCnt = r.int(s.cPaymentCnt, k.key(row...), v[15])
		found = true
		return r.err
	}, i64(cw), i64(cd), cidArg); err != nil {
		return err
	}
	if !found {
		return errNoRow("customer")
	}
	crow := []int64{cw, cd, cid}
	bal := e.money(s.cBalance, k.key(crow...), balance-in.amount)
	ytd := e.money(s.cYtdPayment, k.key(crow...), ytdPay+in.amount)
	cnt := e.int(s.cPaymentCnt, k.key(crow...), payCnt+1)
	if credit == "BC" {
		var data string
		if err := wk.query(st.pCustData, func(v [][]byte) error {
			data = r.text(s.cData, k.key(crow...), v[0])
			return r.err
		}, i64(cw), i64(cd), cidArg); err != nil {
			return err
		}
		data = fmt.Sprintf("%d %d %d %d %d %d.%02d | %s", cid, cd, cw, d, w, in.amount/100, in.amount%100, data)
		if len(data) > 500 {
			data = data[:500]
		}
		if err := wk.exec(st.pCustUpdData, bal, ytd, cnt, e.text(s.cData, k.key(crow...), data), i64(cw), i64(cd), cidArg); err != nil {
			return errors.Join(e.err, err)
		}
	} else if err := wk.exec(st.pCustUpd, bal, ytd, cnt, i64(cw), i64(cd), cidArg); err != nil {
		return errors.Join(e.err, err)
	}
	if e.err != nil {
		return e.err
	}
	hData := wName + "    " + dName
	if len(hData) > 24 {
		hData = hData[:24]
	}
	if err := wk.exec(st.pHist, e.int(s.hCID, k.key(crow...), cid), i64(cd), i64(cw), i64(d), i64(w),
		e.time(s.hDate, k.key(crow...), time.Now()), e.money(s.hAmount, k.key(crow...), in.amount), e.text(s.hData, k.key(crow...), hData)); err != nil {
		return errors.Join(e.err, err)
	}
	if e.err != nil {
		return e.err
	}
	return wk.commit()
}

// address decodes a name and address and returns the name.
func (wk *worker) address(r *dec, row []byte, v [][]byte, cols ...*column) string {
	key := append([]byte(nil), row...)
	name := r.text(cols[0], key, v[0])
	for i, c := range cols[1:] {
		_ = r.text(c, key, v[i+1])
	}
	return name
}

// orderStatus is TPC-C 2.6.2 (read only).
func (wk *worker) orderStatus() error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w, d := wk.home, in.d
	e, r := enc{k: k}, dec{k: k}
	if err := wk.begin(); err != nil {
		return err
	}
	cid := in.cid
	if in.byName {
		var err error
		if cid, err = wk.customerByName(w, d, in.last); err != nil {
			return err
		}
	}
	cidArg := e.int(s.cID, nil, cid)
	if e.err != nil {
		return e.err
	}
	crow := []int64{w, d, cid}
	if err := wk.query(st.osCust, func(v [][]byte) error {
		_ = r.money(s.cBalance, k.key(crow...), v[0])
		_ = r.text(s.cFirst, k.key(crow...), v[1])
		_ = r.text(s.cMiddle, k.key(crow...), v[2])
		_ = r.text(s.cLast, nil, v[3])
		return r.err
	}, i64(w), i64(d), cidArg); err != nil {
		return err
	}
	// The customer's latest order: the client takes the largest O_ID
	// when it is encrypted.
	oid := int64(-1)
	var carrierRaw, entryRaw []byte
	if err := wk.query(st.osOrder, func(v [][]byte) error {
		id := r.int(s.oID, nil, v[0])
		if id > oid {
			oid = id
			carrierRaw = append(carrierRaw[:0], v[1]...)
			entryRaw = append(entryRaw[:0], v[2]...)
			if v[1] == nil {
				carrierRaw = nil
			}
		}
		return r.err
	}, i64(w), i64(d), e.int(s.oCID, nil, cid)); err != nil {
		return errors.Join(e.err, err)
	}
	if oid < 0 {
		return wk.commit() // a customer without orders: nothing more to show
	}
	orow := []int64{w, d, oid}
	if carrierRaw != nil {
		_ = r.int(s.oCarrierID, k.key(orow...), carrierRaw)
	}
	_ = r.time(s.oEntryD, k.key(orow...), entryRaw)
	if err := wk.query(st.osLines, func(v [][]byte) error {
		n := r.int(s.olNumber, nil, v[0])
		lrow := []int64{w, d, oid, n}
		_ = r.int(s.olQuantity, k.key(lrow...), v[3])
		_ = r.money(s.olAmount, k.key(lrow...), v[4])
		_ = r.time(s.olDeliveryD, k.key(lrow...), v[5])
		return r.err
	}, i64(w), i64(d), e.int(s.olOID, nil, oid)); err != nil {
		return errors.Join(e.err, err)
	}
	if e.err != nil || r.err != nil {
		return errors.Join(e.err, r.err)
	}
	return wk.commit()
}

// delivery is TPC-C 2.7.4, all ten districts in one transaction.
func (wk *worker) delivery() error {
	s, k, st, in := wk.s, wk.k, &wk.st, &wk.in
	w := wk.home
	now := time.Now()
	if err := wk.begin(); err != nil {
		return err
	}
	for d := int64(1); d <= districts; d++ {
		e, r := enc{k: k}, dec{k: k}
		oid, err := wk.oldestNewOrder(w, d)
		if err != nil {
			return err
		}
		if oid < 0 {
			wk.notes["delivery_skipped_districts"]++
			continue
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
			var numbers []int64
			if err := wk.query(st.dLines, func(v [][]byte) error {
				n := r.int(s.olNumber, nil, v[0])
				total += r.money(s.olAmount, k.key(w, d, oid, n), v[1])
				numbers = append(numbers, n)
				return r.err
			}, i64(w), i64(d), olArg); err != nil {
				return err
			}
			for _, n := range numbers {
				if err := wk.exec(st.dLineUpd, e.time(s.olDeliveryD, k.key(w, d, oid, n), now), i64(w), i64(d), olArg, i64(n)); err != nil {
					return errors.Join(e.err, err)
				}
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
		if e.err != nil {
			return e.err
		}
	}
	return wk.commit()
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
	if st.dNewLock == nil {
		oid := int64(-1)
		err := wk.query(st.dNew, func(v [][]byte) error {
			oid = r.int(s.noOID, nil, v[0])
			return r.err
		}, i64(w), i64(d))
		return oid, err
	}
	var count, next int64
	if err := wk.query(st.dNew, func(v [][]byte) error {
		count = r.int(s.olNumber, nil, v[0])
		if count > 0 {
			next = r.int(s.dNextOID, k.key(w, d), v[1])
		}
		return r.err
	}, i64(w), i64(d), i64(w), i64(d)); err != nil {
		return -1, err
	}
	for oid := next - count; oid < next; oid++ {
		e := enc{k: k}
		found := false
		if err := wk.query(st.dNewLock, func([][]byte) error { found = true; return nil }, i64(w), i64(d), e.int(s.noOID, nil, oid)); err != nil {
			return -1, errors.Join(e.err, err)
		}
		if found {
			return oid, nil
		}
	}
	return -1, nil
}

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
	args := []engine.Arg{i64(w), i64(d)}
	if k.on(s.olOID) {
		// The window of order numbers, each encrypted for equality.
		for o := next - slOrders; o < next; o++ {
			args = append(args, e.int(s.olOID, nil, o))
		}
	} else {
		args = append(args, i64(next), i64(next-slOrders))
	}
	args = append(args, i64(w))
	if e.err != nil {
		return e.err
	}
	var low int64
	if k.on(s.sQuantity) {
		seen := map[int64]bool{}
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
		low = r.int(s.sIID, nil, v[0])
		return r.err
	}, append(args, i64(in.threshold))...); err != nil {
		return err
	}
	_ = low
	return wk.commit()
}
