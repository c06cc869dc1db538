package tpcc

import "github.com/encbench/encbench/internal/engine"

// args collects one row's arguments, keeping the first encoding error.
type args struct {
	a   []engine.Arg
	err error
}

func (r *args) put(a engine.Arg, err error) {
	if r.err == nil {
		r.err = err
	}
	r.a = append(r.a, a)
}

func (r *args) int(v int64) { r.a = append(r.a, engine.Arg{Int: v}) }
func (r *args) null()       { r.a = append(r.a, engine.Arg{Null: true}) }

func (l *loader) items(from int) error {
	s, k := l.w.s, l.k
	for i := from; i < from+chunk && i <= items; i++ {
		id := int64(i)
		var r args
		r.int(id)
		r.put(k.Int(s.iImID, k.key(id), int64(l.g.Int(1, 10000))))
		r.put(k.Text(s.iName, k.key(id), l.g.AString(14, 24)))
		r.put(k.Dec(s.iPrice, k.key(id), l.g.Money(100, 10000)))
		r.put(k.Text(s.iData, k.key(id), l.g.Data()))
		if r.err != nil {
			return r.err
		}
		if err := l.add(s.item, r.a...); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) address(r *args, row []int64, cols ...*column) {
	k, g := l.k, l.g
	r.put(k.Text(cols[0], k.key(row...), g.AString(10, 20)))
	r.put(k.Text(cols[1], k.key(row...), g.AString(10, 20)))
	r.put(k.Text(cols[2], k.key(row...), g.AString(10, 20)))
	r.put(k.Text(cols[3], k.key(row...), g.AString(2, 2)))
	r.put(k.Text(cols[4], k.key(row...), g.Zip()))
}

func (l *loader) warehouse(wh int) error {
	s, k, g := l.w.s, l.k, l.g
	w := int64(wh)
	var r args
	r.int(w)
	r.put(k.Text(s.wName, k.key(w), g.AString(6, 10)))
	l.address(&r, []int64{w}, s.wStreet1, s.wStreet2, s.wCity, s.wState, s.wZip)
	r.put(k.Dec(s.wTax, k.key(w), int64(g.Int(0, 2000))))
	r.put(k.Dec(s.wYtd, k.key(w), 30000000))
	if r.err != nil {
		return r.err
	}
	if err := l.add(s.warehouse, r.a...); err != nil {
		return err
	}
	for d := int64(1); d <= districts; d++ {
		var r args
		r.int(d)
		r.int(w)
		r.put(k.Text(s.dName, k.key(w, d), g.AString(6, 10)))
		l.address(&r, []int64{w, d}, s.dStreet1, s.dStreet2, s.dCity, s.dState, s.dZip)
		r.put(k.Dec(s.dTax, k.key(w, d), int64(g.Int(0, 2000))))
		r.put(k.Dec(s.dYtd, k.key(w, d), 3000000))
		r.put(k.Int(s.dNextOID, k.key(w, d), orders+1))
		if r.err != nil {
			return r.err
		}
		if err := l.add(s.district, r.a...); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) stockRange(wh, from int) error {
	s, k, g := l.w.s, l.k, l.g
	w := int64(wh)
	for i := from; i < from+chunk && i <= items; i++ {
		id := int64(i)
		var r args
		r.int(id)
		r.int(w)
		r.put(k.Int(s.sQuantity, k.key(w, id), int64(g.Int(10, 100))))
		for _, c := range s.sDist {
			r.put(k.Text(c, k.key(w, id), g.AString(24, 24)))
		}
		r.put(k.Int(s.sYtd, k.key(w, id), 0))
		r.put(k.Int(s.sOrderCnt, k.key(w, id), 0))
		r.put(k.Int(s.sRemoteCnt, k.key(w, id), 0))
		r.put(k.Text(s.sData, k.key(w, id), g.Data()))
		if r.err != nil {
			return r.err
		}
		if err := l.add(s.stock, r.a...); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) customers(wh, dist int) error {
	s, k, g := l.w.s, l.k, l.g
	w, d := int64(wh), int64(dist)
	for c := int64(1); c <= customers; c++ {
		row := []int64{w, d, c}
		last := LastName(g.NURand(255, cLastLoad, 0, 999))
		if c <= 1000 {
			last = LastName(int(c - 1))
		}
		credit := "GC"
		if g.Int(1, 10) == 1 {
			credit = "BC"
		}
		var r args
		r.put(k.Int(s.cID, nil, c))
		r.int(d)
		r.int(w)
		r.put(k.Text(s.cFirst, k.key(row...), g.AString(8, 16)))
		r.put(k.Text(s.cMiddle, k.key(row...), "OE"))
		r.put(k.Text(s.cLast, nil, last))
		l.address(&r, row, s.cStreet1, s.cStreet2, s.cCity, s.cState, s.cZip)
		r.put(k.Text(s.cPhone, k.key(row...), g.NString(16, 16)))
		r.put(k.Time(s.cSince, k.key(row...), l.now))
		r.put(k.Text(s.cCredit, k.key(row...), credit))
		r.put(k.Dec(s.cCreditLim, k.key(row...), 5000000))
		r.put(k.Dec(s.cDiscount, k.key(row...), int64(g.Int(0, 5000))))
		r.put(k.Dec(s.cBalance, k.key(row...), -1000))
		r.put(k.Dec(s.cYtdPayment, k.key(row...), 1000))
		r.put(k.Int(s.cPaymentCnt, k.key(row...), 1))
		r.put(k.Int(s.cDeliveryCnt, k.key(row...), 0))
		r.put(k.Text(s.cData, k.key(row...), g.AString(300, 500)))
		if r.err != nil {
			return r.err
		}
		if err := l.add(s.customer, r.a...); err != nil {
			return err
		}
		var h args
		h.put(k.Int(s.hCID, k.key(row...), c))
		h.int(d)
		h.int(w)
		h.int(d)
		h.int(w)
		h.put(k.Time(s.hDate, k.key(row...), l.now))
		h.put(k.Dec(s.hAmount, k.key(row...), 1000))
		h.put(k.Text(s.hData, k.key(row...), g.AString(12, 24)))
		if h.err != nil {
			return h.err
		}
		if err := l.add(s.history, h.a...); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) orders(wh, dist int) error {
	s, k, g := l.w.s, l.k, l.g
	w, d := int64(wh), int64(dist)
	perm := g.r.Perm(customers)
	for o := int64(1); o <= orders; o++ {
		row := []int64{w, d, o}
		olCnt := int64(g.Int(5, maxOrderLines))
		delivered := o < firstNewOrder
		var r args
		r.put(k.Int(s.oID, nil, o))
		r.int(d)
		r.int(w)
		r.put(k.Int(s.oCID, nil, int64(perm[o-1]+1)))
		r.put(k.Time(s.oEntryD, k.key(row...), l.now))
		if delivered {
			r.put(k.Int(s.oCarrierID, k.key(row...), int64(g.Int(1, 10))))
		} else {
			r.null()
		}
		r.put(k.Int(s.oOlCnt, k.key(row...), olCnt))
		r.put(k.Int(s.oAllLocal, k.key(row...), 1))
		if r.err != nil {
			return r.err
		}
		if err := l.add(s.orders, r.a...); err != nil {
			return err
		}
		for n := int64(1); n <= olCnt; n++ {
			line := []int64{w, d, o, n}
			var ol args
			ol.put(k.Int(s.olOID, nil, o))
			ol.int(d)
			ol.int(w)
			ol.int(n)
			ol.int(int64(g.Int(1, items)))
			ol.int(w)
			amount := int64(0)
			if delivered {
				ol.put(k.Time(s.olDeliveryD, k.key(line...), l.now))
			} else {
				ol.null()
				amount = g.Money(1, 999999)
			}
			ol.put(k.Int(s.olQuantity, k.key(line...), 5))
			ol.put(k.Dec(s.olAmount, k.key(line...), amount))
			ol.put(k.Text(s.olDistInfo, k.key(line...), g.AString(24, 24)))
			if ol.err != nil {
				return ol.err
			}
			if err := l.add(s.orderLine, ol.a...); err != nil {
				return err
			}
		}
		if !delivered {
			var no args
			no.put(k.Int(s.noOID, nil, o))
			no.int(d)
			no.int(w)
			if no.err != nil {
				return no.err
			}
			if err := l.add(s.newOrder, no.a...); err != nil {
				return err
			}
		}
	}
	return nil
}
