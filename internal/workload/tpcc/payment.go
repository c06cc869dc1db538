package tpcc

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

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
