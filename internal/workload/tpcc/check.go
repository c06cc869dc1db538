package tpcc

import (
	"context"
	"fmt"

	"github.com/encbench/encbench/internal/workload"
)

type district struct{ w, d int64 }

type orderKey struct{ w, d, o int64 }

type customerKey struct{ w, d, c int64 }

// orderState is what the conditions need of one order and its lines.
type orderState struct {
	customer    int64
	carrierNull bool
	olCnt       int64
	// Lines found, split by whether OL_DELIVERY_D is set, and the amount
	// of the delivered ones in cents.
	lines, delivered, undelivered int64
	deliveredAmount               int64
}

// state is the database as the conditions read it, decrypted.
type state struct {
	wYtd, histW map[int64]int64
	dYtd, histD map[district]int64
	next        map[district]int64
	maxO, olCnt map[district]int64
	orderRows   map[district]int64
	maxNO       map[district]int64
	minNO       map[district]int64
	countNO     map[district]int64
	linesPerD   map[district]int64
	orders      map[orderKey]*orderState
	newOrders   map[orderKey]bool
	histC       map[customerKey]int64
	balance     map[customerKey]int64
	ytdPayment  map[customerKey]int64
}

// Check runs TPC-C's consistency conditions 3.3.2.1 to 3.3.2.12 (TPC-C
// 5.11, clause 3.3.2) on every warehouse, district, order and customer,
// decrypting in the client whatever the level encrypted, then checks that
// stored values read as the level says.
func (w *Workload) Check(ctx context.Context, env workload.Env) ([]workload.CheckResult, error) {
	cipher, err := w.keys()
	if err != nil {
		return nil, err
	}
	c, err := env.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := w.checkConfig(ctx, c, cipher); err != nil {
		return nil, err
	}
	k, err := newCodec(w.s, w.o.Level, cipher)
	if err != nil {
		return nil, err
	}
	r := &dec{k: k}
	scan := func(table, sql string, row func([][]byte)) error {
		st, err := c.Prepare(ctx, sql)
		if err == nil {
			err = st.Query(nil, func(v [][]byte) error { row(v); return r.err })
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", table, err)
		}
		return nil
	}
	st, err := w.read(r, scan)
	if err != nil {
		return nil, err
	}
	if len(st.wYtd) != w.o.Warehouses || len(st.next) != w.o.Warehouses*districts {
		return nil, fmt.Errorf("found %d warehouses and %d districts, expected %d and %d", len(st.wYtd), len(st.next), w.o.Warehouses, w.o.Warehouses*districts)
	}
	res := st.conditions()
	stored := workload.CheckResult{ID: "colenc", OK: true,
		Condition: "every stored value of a business column reads as its level says: a ciphertext of its column and row, or plaintext"}
	p, err := w.prove(ctx, c, func(t *table) int {
		if wholeTables[t.name] {
			return 0
		}
		return checkSample
	})
	if err != nil {
		stored.OK, stored.Detail = false, err.Error()
	} else {
		stored.Detail = fmt.Sprintf("%d values read (all rows of warehouse, district, orders, new_order, history; %d of each other table), %d of them ciphertexts", p.Checked, checkSample, p.Ciphertext)
	}
	return append(res, stored), nil
}

// readOrders scans orders, new_order and order_line into st.
func (w *Workload) readOrders(r *dec, scan func(table, sql string, row func([][]byte)) error, st *state) error {
	s, k := w.s, r.k
	if err := scan("orders", "SELECT o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt FROM orders", func(v [][]byte) {
		key := district{r.int(s.oWID, nil, v[0]), r.int(s.oDID, nil, v[1])}
		o := r.int(s.oID, nil, v[2])
		ord := &orderState{customer: r.int(s.oCID, nil, v[3]), carrierNull: v[4] == nil}
		if !ord.carrierNull {
			r.int(s.oCarrierID, k.key(key.w, key.d, o), v[4]) // decrypts, so a wrong row or key fails
		}
		ord.olCnt = r.int(s.oOlCnt, k.key(key.w, key.d, o), v[5])
		st.orders[orderKey{key.w, key.d, o}] = ord
		st.maxO[key] = max(st.maxO[key], o)
		st.olCnt[key] += ord.olCnt
		st.orderRows[key]++
	}); err != nil {
		return err
	}
	if err := scan("new_order", "SELECT no_w_id, no_d_id, no_o_id FROM new_order", func(v [][]byte) {
		key := district{r.int(s.noWID, nil, v[0]), r.int(s.noDID, nil, v[1])}
		o := r.int(s.noOID, nil, v[2])
		if st.countNO[key] == 0 || o < st.minNO[key] {
			st.minNO[key] = o
		}
		st.maxNO[key] = max(st.maxNO[key], o)
		st.countNO[key]++
		st.newOrders[orderKey{key.w, key.d, o}] = true
	}); err != nil {
		return err
	}
	missing := &orderState{}
	if err := scan("order_line", "SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, ol_amount FROM order_line", func(v [][]byte) {
		key := district{r.int(s.olWID, nil, v[0]), r.int(s.olDID, nil, v[1])}
		o := r.int(s.olOID, nil, v[2])
		n := r.int(s.olNumber, nil, v[3])
		st.linesPerD[key]++
		ord := st.orders[orderKey{key.w, key.d, o}]
		if ord == nil {
			ord = missing // a line without its order: 3.3.2.6 sees it
		}
		ord.lines++
		amount := r.money(s.olAmount, k.key(key.w, key.d, o, n), v[5])
		if v[4] == nil {
			ord.undelivered++
			return
		}
		r.time(s.olDeliveryD, k.key(key.w, key.d, o, n), v[4])
		ord.delivered++
		ord.deliveredAmount += amount
	}); err != nil {
		return err
	}
	if missing.lines > 0 {
		st.orders[orderKey{-1, -1, -1}] = missing
	}
	return nil
}

// read scans the tables the conditions compare, decrypting each value
// with its column and row.
func (w *Workload) read(r *dec, scan func(table, sql string, row func([][]byte)) error) (*state, error) {
	s, k := w.s, r.k
	st := &state{wYtd: map[int64]int64{}, histW: map[int64]int64{}, dYtd: map[district]int64{}, histD: map[district]int64{},
		next: map[district]int64{}, maxO: map[district]int64{}, olCnt: map[district]int64{}, orderRows: map[district]int64{},
		maxNO: map[district]int64{}, minNO: map[district]int64{}, countNO: map[district]int64{}, linesPerD: map[district]int64{},
		orders: map[orderKey]*orderState{}, newOrders: map[orderKey]bool{}, histC: map[customerKey]int64{},
		balance: map[customerKey]int64{}, ytdPayment: map[customerKey]int64{}}
	if err := scan("warehouse", "SELECT w_id, w_ytd FROM warehouse", func(v [][]byte) {
		id := r.int(s.wID, nil, v[0])
		st.wYtd[id] = r.money(s.wYtd, k.key(id), v[1])
	}); err != nil {
		return nil, err
	}
	if err := scan("district", "SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district", func(v [][]byte) {
		key := district{r.int(s.dWID, nil, v[0]), r.int(s.dID, nil, v[1])}
		st.dYtd[key] = r.money(s.dYtd, k.key(key.w, key.d), v[2])
		st.next[key] = r.int(s.dNextOID, k.key(key.w, key.d), v[3])
	}); err != nil {
		return nil, err
	}
	if err := w.readOrders(r, scan, st); err != nil {
		return nil, err
	}
	if err := scan("history", "SELECT h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id, h_amount FROM history", func(v [][]byte) {
		cust := customerKey{r.int(s.hCWID, nil, v[0]), r.int(s.hCDID, nil, v[1]), r.int(s.hCID, nil, v[2])}
		hw, hd := r.int(s.hWID, nil, v[3]), r.int(s.hDID, nil, v[4])
		amount := r.money(s.hAmount, k.key(cust.w, cust.d, cust.c), v[5])
		st.histW[hw] += amount
		st.histD[district{hw, hd}] += amount
		st.histC[cust] += amount
	}); err != nil {
		return nil, err
	}
	if err := scan("customer", "SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment FROM customer", func(v [][]byte) {
		cust := customerKey{r.int(s.cWID, nil, v[0]), r.int(s.cDID, nil, v[1]), r.int(s.cID, nil, v[2])}
		st.balance[cust] = r.money(s.cBalance, k.key(cust.w, cust.d, cust.c), v[3])
		st.ytdPayment[cust] = r.money(s.cYtdPayment, k.key(cust.w, cust.d, cust.c), v[4])
	}); err != nil {
		return nil, err
	}
	return st, nil
}
