package tpcc

import (
	"errors"
)

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
