package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/engine"
)

// statements are a terminal's prepared statements. Where the level encrypts
// a column that the plaintext statement computes with (arithmetic, MIN,
// SUM, ORDER BY, a range or a comparison), the statement reads the column
// instead and the transaction computes in the client.
type statements struct {
	begin, commit, rollback engine.Stmt

	noCust, noWh, noDist, noDistUpd, noOrder, noNew, noItem, noStockUpd, noLine engine.Stmt
	noStock                                                                     [districts]engine.Stmt

	pWh, pWhUpd, pDist, pDistUpd, pByName, pCust, pCustData, pCustUpd, pCustUpdData, pHist engine.Stmt

	osCust, osOrder, osLines engine.Stmt

	dNew, dNewLock, dDel, dOrd, dOrdUpd, dLines, dLineUpd, dCust, dCustUpd engine.Stmt
	dNewWindow                                                             [len(deliveryWindows)]engine.Stmt

	slDist, slCount engine.Stmt
}

// slOrders is StockLevel's window: the district's last 20 orders.
const slOrders = 20

func (st *statements) prepare(ctx context.Context, c engine.Conn, s *schema, k *codec) error {
	ps := &engine.Preparer{Ctx: ctx, Conn: c}
	p := ps.Prepare
	st.begin, st.commit, st.rollback = p("BEGIN"), p("COMMIT"), p("ROLLBACK")

	st.noCust = p("SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	st.noWh = p("SELECT w_tax FROM warehouse WHERE w_id = ?")
	st.noDist = p("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE")
	st.noDistUpd = p("UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?")
	st.noOrder = p("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)")
	st.noNew = p("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	st.noItem = p("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?")
	stockCounters := ""
	if k.on(s.sYtd) {
		stockCounters = ", s_ytd, s_order_cnt, s_remote_cnt"
	}
	for d := range st.noStock {
		st.noStock[d] = p("SELECT s_quantity, s_data, s_dist_%02d%s FROM stock WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE", d+1, stockCounters)
	}
	if k.on(s.sYtd) {
		st.noStockUpd = p("UPDATE stock SET s_quantity = ?, s_ytd = ?, s_order_cnt = ?, s_remote_cnt = ? WHERE s_i_id = ? AND s_w_id = ?")
	} else {
		st.noStockUpd = p("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?")
	}
	st.noLine = p("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)")

	whAddr, dAddr := "w_name, w_street_1, w_street_2, w_city, w_state, w_zip", "d_name, d_street_1, d_street_2, d_city, d_state, d_zip"
	if k.on(s.wYtd) {
		st.pWh = p("SELECT %s, w_ytd FROM warehouse WHERE w_id = ? FOR UPDATE", whAddr)
		st.pWhUpd = p("UPDATE warehouse SET w_ytd = ? WHERE w_id = ?")
		st.pDist = p("SELECT %s, d_ytd FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE", dAddr)
		st.pDistUpd = p("UPDATE district SET d_ytd = ? WHERE d_w_id = ? AND d_id = ?")
	} else {
		st.pWh = p("SELECT %s FROM warehouse WHERE w_id = ?", whAddr)
		st.pWhUpd = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?")
		st.pDist = p("SELECT %s FROM district WHERE d_w_id = ? AND d_id = ?", dAddr)
		st.pDistUpd = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?")
	}
	order := " ORDER BY c_first"
	if k.on(s.cFirst) {
		order = ""
	}
	st.pByName = p("SELECT c_id, c_first FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?%s", order)
	st.pCust = p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE")
	st.pCustData = p("SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	st.pCustUpd = p("UPDATE customer SET c_balance = ?, c_ytd_payment = ?, c_payment_cnt = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	st.pCustUpdData = p("UPDATE customer SET c_balance = ?, c_ytd_payment = ?, c_payment_cnt = ?, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	st.pHist = p("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

	st.osCust = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	if k.on(s.oID) {
		st.osOrder = p("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?")
	} else {
		st.osOrder = p("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	}
	st.osLines = p("SELECT ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")

	if k.on(s.noOID) {
		// One statement, so count and counter come from one snapshot.
		st.dNew = p("SELECT COUNT(*), (SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?) FROM new_order WHERE no_w_id = ? AND no_d_id = ?")
		st.dNewLock = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ? FOR UPDATE")
		for i, n := range deliveryWindows {
			// One index probe per id, whatever the planner thinks of an IN
			// list (it scans the district's new orders and filters them).
			probe := "(SELECT 1 FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?)"
			st.dNewWindow[i] = p("SELECT %s", strings.TrimSuffix(strings.Repeat(probe+", ", int(n)), ", "))
		}
	} else {
		st.dNew = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE")
	}
	st.dDel = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	st.dOrd = p("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	st.dOrdUpd = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	if k.on(s.olDeliveryD) {
		// Each line's date is bound to its row, so each line gets its own
		// ciphertext, all in one statement. The read takes no row locks:
		// only the Delivery that holds the order's new_order row writes
		// its lines, and the UPDATE locks them.
		st.dLines = p("SELECT ol_number, ol_amount FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
		var when strings.Builder
		for n := 1; n <= maxOrderLines; n++ {
			fmt.Fprintf(&when, " WHEN %d THEN ?", n)
		}
		// ELSE gives the CASE the column's type (PostgreSQL).
		st.dLineUpd = p("UPDATE order_line SET ol_delivery_d = CASE ol_number%s ELSE ol_delivery_d END WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?", when.String())
	} else {
		st.dLines = p("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
		st.dLineUpd = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	}
	if k.on(s.cBalance) || k.on(s.cDeliveryCnt) {
		st.dCust = p("SELECT c_balance, c_delivery_cnt FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE")
		st.dCustUpd = p("UPDATE customer SET c_balance = ?, c_delivery_cnt = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	} else {
		st.dCustUpd = p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	}

	st.slDist = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	window := "ol_o_id < ? AND ol_o_id >= ?"
	if k.on(s.olOID) {
		window = "ol_o_id IN (" + joinQ(slOrders) + ")"
	}
	if k.on(s.sQuantity) {
		st.slCount = p("SELECT s_i_id, s_quantity FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND %s AND s_w_id = ? AND s_i_id = ol_i_id", window)
	} else {
		st.slCount = p("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND %s AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?", window)
	}
	if ps.Err != nil {
		return fmt.Errorf("preparing the TPC-C statements: %w", ps.Err)
	}
	return nil
}
