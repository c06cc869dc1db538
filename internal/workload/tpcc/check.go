package tpcc

import (
	"context"
	"fmt"

	"github.com/encbench/encbench/internal/workload"
)

type district struct{ w, d int64 }

// Check runs TPC-C's consistency conditions 3.3.2.1 to 3.3.2.4, decrypting
// in the client whatever the level encrypted.
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
	s := w.s
	r := &dec{k: k}
	scan := func(sql string, row func([][]byte)) error {
		st, err := c.Prepare(ctx, sql)
		if err != nil {
			return err
		}
		return st.Query(nil, func(v [][]byte) error { row(v); return r.err })
	}
	wYtd := map[int64]int64{}
	dYtd := map[int64]int64{}
	next := map[district]int64{}
	if err := scan("SELECT w_id, w_ytd FROM warehouse", func(v [][]byte) {
		id := r.int(s.wID, nil, v[0])
		wYtd[id] = r.money(s.wYtd, k.key(id), v[1])
	}); err != nil {
		return nil, fmt.Errorf("reading warehouse: %w", err)
	}
	if err := scan("SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district", func(v [][]byte) {
		key := district{r.int(s.dWID, nil, v[0]), r.int(s.dID, nil, v[1])}
		dYtd[key.w] += r.money(s.dYtd, k.key(key.w, key.d), v[2])
		next[key] = r.int(s.dNextOID, k.key(key.w, key.d), v[3])
	}); err != nil {
		return nil, fmt.Errorf("reading district: %w", err)
	}
	maxO, olCnt := map[district]int64{}, map[district]int64{}
	if err := scan("SELECT o_w_id, o_d_id, o_id, o_ol_cnt FROM orders", func(v [][]byte) {
		key := district{r.int(s.oWID, nil, v[0]), r.int(s.oDID, nil, v[1])}
		o := r.int(s.oID, nil, v[2])
		maxO[key] = max(maxO[key], o)
		olCnt[key] += r.int(s.oOlCnt, k.key(key.w, key.d, o), v[3])
	}); err != nil {
		return nil, fmt.Errorf("reading orders: %w", err)
	}
	maxNO, minNO, countNO := map[district]int64{}, map[district]int64{}, map[district]int64{}
	if err := scan("SELECT no_w_id, no_d_id, no_o_id FROM new_order", func(v [][]byte) {
		key := district{r.int(s.noWID, nil, v[0]), r.int(s.noDID, nil, v[1])}
		o := r.int(s.noOID, nil, v[2])
		if countNO[key] == 0 || o < minNO[key] {
			minNO[key] = o
		}
		maxNO[key] = max(maxNO[key], o)
		countNO[key]++
	}); err != nil {
		return nil, fmt.Errorf("reading new_order: %w", err)
	}
	lines := map[district]int64{}
	if err := scan("SELECT ol_w_id, ol_d_id, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id", func(v [][]byte) {
		key := district{r.int(s.olWID, nil, v[0]), r.int(s.olDID, nil, v[1])}
		lines[key] = r.count(v[2])
	}); err != nil {
		return nil, fmt.Errorf("reading order_line: %w", err)
	}
	res := []workload.CheckResult{
		{ID: "3.3.2.1", Condition: "W_YTD = sum(D_YTD) for each warehouse"},
		{ID: "3.3.2.2", Condition: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district"},
		{ID: "3.3.2.3", Condition: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER for each district"},
		{ID: "3.3.2.4", Condition: "sum(O_OL_CNT) = rows in ORDER-LINE for each district"},
	}
	var bad [4][]string
	if len(wYtd) != w.o.Warehouses || len(next) != w.o.Warehouses*districts {
		return nil, fmt.Errorf("found %d warehouses and %d districts, expected %d and %d", len(wYtd), len(next), w.o.Warehouses, w.o.Warehouses*districts)
	}
	for id, ytd := range wYtd {
		if ytd != dYtd[id] {
			bad[0] = append(bad[0], fmt.Sprintf("warehouse %d: W_YTD %s, sum(D_YTD) %s", id, cents(ytd), cents(dYtd[id])))
		}
	}
	for key, n := range next {
		if n-1 != maxO[key] || (countNO[key] > 0 && n-1 != maxNO[key]) {
			bad[1] = append(bad[1], fmt.Sprintf("district %d/%d: D_NEXT_O_ID-1 %d, max(O_ID) %d, max(NO_O_ID) %d", key.w, key.d, n-1, maxO[key], maxNO[key]))
		}
		if countNO[key] > 0 && maxNO[key]-minNO[key]+1 != countNO[key] {
			bad[2] = append(bad[2], fmt.Sprintf("district %d/%d: max-min+1 %d, rows %d", key.w, key.d, maxNO[key]-minNO[key]+1, countNO[key]))
		}
		if olCnt[key] != lines[key] {
			bad[3] = append(bad[3], fmt.Sprintf("district %d/%d: sum(O_OL_CNT) %d, rows %d", key.w, key.d, olCnt[key], lines[key]))
		}
	}
	for i := range res[:4] {
		res[i].OK = len(bad[i]) == 0
		res[i].Detail = fmt.Sprintf("%d warehouse(s), %d districts checked", len(wYtd), len(next))
		if !res[i].OK {
			res[i].Detail = fmt.Sprintf("%d violation(s), first: %s", len(bad[i]), bad[i][0])
		}
	}
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

func cents(n int64) string { return fmt.Sprintf("%d.%02d", n/100, abs(n%100)) }

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
