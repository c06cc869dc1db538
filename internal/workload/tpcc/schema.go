package tpcc

import (
	"fmt"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
)

// Encryption levels of R3: the share of business columns encrypted.
var levels = []int{0, 20, 50, 100}

// column is one column of the TPC-C schema. level is the lowest
// --encrypt-columns level that encrypts it; 0 marks a structural column
// (warehouse, district and item numbers, line number) that partitions the
// data and is never encrypted.
type column struct {
	table  *table
	name   string
	kind   colenc.Kind
	sql    string // plaintext type; "" for timestamps (dialect's)
	scale  uint8  // decimals
	maxLen int    // text: bytes
	level  int
	scheme colenc.Scheme
	idx    int
}

// table is one of the nine TPC-C tables; rowKey names the columns that
// identify a row, whose plaintext binds a randomized ciphertext to it.
type table struct {
	name    string
	cols    []*column
	pk      []string
	rowKey  string
	indexes []string
}

func (t *table) add(name string, kind colenc.Kind, sql string, level int, scheme colenc.Scheme) *column {
	c := &column{table: t, name: name, kind: kind, sql: sql, level: level, scheme: scheme}
	switch kind {
	case colenc.KindDecimal:
		var p, s int
		fmt.Sscanf(sql, "DECIMAL(%d,%d)", &p, &s)
		c.scale = uint8(s)
	case colenc.KindText:
		var n int
		if _, err := fmt.Sscanf(sql[strings.Index(sql, "(")+1:], "%d", &n); err == nil {
			c.maxLen = n
		}
	}
	t.cols = append(t.cols, c)
	return c
}

func structural(t *table, name string) *column {
	return t.add(name, colenc.KindInt, "INTEGER", 0, "")
}

const (
	rnd = colenc.Rnd
	det = colenc.Det
	ki  = colenc.KindInt
	kd  = colenc.KindDecimal
	kt  = colenc.KindTime
	ks  = colenc.KindText
)

// schema is TPC-C 5.11's nine tables with the encryption level and scheme of
// every business column: det where a transaction looks a row up by the
// column, rnd elsewhere.
type schema struct {
	tables []*table

	warehouse, district, customer, history, newOrder, orders, orderLine, item, stock *table

	wID, wName, wStreet1, wStreet2, wCity, wState, wZip, wTax, wYtd                                  *column
	dID, dWID, dName, dStreet1, dStreet2, dCity, dState, dZip, dTax, dYtd, dNextOID                  *column
	cID, cDID, cWID, cFirst, cMiddle, cLast, cStreet1, cStreet2, cCity, cState, cZip, cPhone, cSince *column
	cCredit, cCreditLim, cDiscount, cBalance, cYtdPayment, cPaymentCnt, cDeliveryCnt, cData          *column
	hCID, hCDID, hCWID, hDID, hWID, hDate, hAmount, hData                                            *column
	noOID, noDID, noWID                                                                              *column
	oID, oDID, oWID, oCID, oEntryD, oCarrierID, oOlCnt, oAllLocal                                    *column
	olOID, olDID, olWID, olNumber, olIID, olSupplyWID, olDeliveryD, olQuantity, olAmount, olDistInfo *column
	iID, iImID, iName, iPrice, iData                                                                 *column
	sIID, sWID, sQuantity, sYtd, sOrderCnt, sRemoteCnt, sData                                        *column
	sDist                                                                                            [10]*column
}

func newSchema() *schema {
	s := &schema{}
	tb := func(name, rowKey string, pk ...string) *table {
		t := &table{name: name, pk: pk, rowKey: rowKey}
		s.tables = append(s.tables, t)
		return t
	}
	w := tb("warehouse", "w_id", "w_id")
	s.warehouse = w
	s.wID = structural(w, "w_id")
	s.wName = w.add("w_name", ks, "VARCHAR(10)", 100, rnd)
	s.wStreet1 = w.add("w_street_1", ks, "VARCHAR(20)", 100, rnd)
	s.wStreet2 = w.add("w_street_2", ks, "VARCHAR(20)", 100, rnd)
	s.wCity = w.add("w_city", ks, "VARCHAR(20)", 100, rnd)
	s.wState = w.add("w_state", ks, "CHAR(2)", 100, rnd)
	s.wZip = w.add("w_zip", ks, "CHAR(9)", 100, rnd)
	s.wTax = w.add("w_tax", kd, "DECIMAL(4,4)", 50, rnd)
	s.wYtd = w.add("w_ytd", kd, "DECIMAL(12,2)", 50, rnd)

	d := tb("district", "d_w_id, d_id", "d_w_id", "d_id")
	s.district = d
	s.dID = structural(d, "d_id")
	s.dWID = structural(d, "d_w_id")
	s.dName = d.add("d_name", ks, "VARCHAR(10)", 100, rnd)
	s.dStreet1 = d.add("d_street_1", ks, "VARCHAR(20)", 100, rnd)
	s.dStreet2 = d.add("d_street_2", ks, "VARCHAR(20)", 100, rnd)
	s.dCity = d.add("d_city", ks, "VARCHAR(20)", 100, rnd)
	s.dState = d.add("d_state", ks, "CHAR(2)", 100, rnd)
	s.dZip = d.add("d_zip", ks, "CHAR(9)", 100, rnd)
	s.dTax = d.add("d_tax", kd, "DECIMAL(4,4)", 50, rnd)
	s.dYtd = d.add("d_ytd", kd, "DECIMAL(12,2)", 50, rnd)
	s.dNextOID = d.add("d_next_o_id", ki, "INTEGER", 20, rnd)

	c := tb("customer", "c_w_id, c_d_id, c_id", "c_w_id", "c_d_id", "c_id")
	s.customer = c
	c.indexes = []string{"c_w_id, c_d_id, c_last, c_first"}
	s.cID = c.add("c_id", ki, "INTEGER", 20, det)
	s.cDID = structural(c, "c_d_id")
	s.cWID = structural(c, "c_w_id")
	s.cFirst = c.add("c_first", ks, "VARCHAR(16)", 20, rnd)
	s.cMiddle = c.add("c_middle", ks, "CHAR(2)", 100, rnd)
	s.cLast = c.add("c_last", ks, "VARCHAR(16)", 20, det)
	s.cStreet1 = c.add("c_street_1", ks, "VARCHAR(20)", 20, rnd)
	s.cStreet2 = c.add("c_street_2", ks, "VARCHAR(20)", 20, rnd)
	s.cCity = c.add("c_city", ks, "VARCHAR(20)", 20, rnd)
	s.cState = c.add("c_state", ks, "CHAR(2)", 20, rnd)
	s.cZip = c.add("c_zip", ks, "CHAR(9)", 20, rnd)
	s.cPhone = c.add("c_phone", ks, "CHAR(16)", 20, rnd)
	s.cSince = c.add("c_since", kt, "", 50, rnd)
	s.cCredit = c.add("c_credit", ks, "CHAR(2)", 100, rnd)
	s.cCreditLim = c.add("c_credit_lim", kd, "DECIMAL(12,2)", 50, rnd)
	s.cDiscount = c.add("c_discount", kd, "DECIMAL(4,4)", 50, rnd)
	s.cBalance = c.add("c_balance", kd, "DECIMAL(12,2)", 50, rnd)
	s.cYtdPayment = c.add("c_ytd_payment", kd, "DECIMAL(12,2)", 50, rnd)
	s.cPaymentCnt = c.add("c_payment_cnt", ki, "INTEGER", 100, rnd)
	s.cDeliveryCnt = c.add("c_delivery_cnt", ki, "INTEGER", 100, rnd)
	s.cData = c.add("c_data", ks, "VARCHAR(500)", 100, rnd)

	// TPC-C's history has no key: a row is bound to its customer.
	h := tb("history", "h_c_w_id, h_c_d_id, h_c_id")
	s.history = h
	s.hCID = h.add("h_c_id", ki, "INTEGER", 20, det)
	s.hCDID = structural(h, "h_c_d_id")
	s.hCWID = structural(h, "h_c_w_id")
	s.hDID = structural(h, "h_d_id")
	s.hWID = structural(h, "h_w_id")
	s.hDate = h.add("h_date", kt, "", 50, rnd)
	s.hAmount = h.add("h_amount", kd, "DECIMAL(6,2)", 50, rnd)
	s.hData = h.add("h_data", ks, "VARCHAR(24)", 100, rnd)

	n := tb("new_order", "no_w_id, no_d_id, no_o_id", "no_w_id", "no_d_id", "no_o_id")
	s.newOrder = n
	s.noOID = n.add("no_o_id", ki, "INTEGER", 20, det)
	s.noDID = structural(n, "no_d_id")
	s.noWID = structural(n, "no_w_id")

	o := tb("orders", "o_w_id, o_d_id, o_id", "o_w_id", "o_d_id", "o_id")
	s.orders = o
	o.indexes = []string{"o_w_id, o_d_id, o_c_id, o_id"}
	s.oID = o.add("o_id", ki, "INTEGER", 20, det)
	s.oDID = structural(o, "o_d_id")
	s.oWID = structural(o, "o_w_id")
	s.oCID = o.add("o_c_id", ki, "INTEGER", 20, det)
	s.oEntryD = o.add("o_entry_d", kt, "", 50, rnd)
	s.oCarrierID = o.add("o_carrier_id", ki, "INTEGER", 100, rnd)
	s.oOlCnt = o.add("o_ol_cnt", ki, "INTEGER", 50, rnd)
	s.oAllLocal = o.add("o_all_local", ki, "INTEGER", 100, rnd)

	l := tb("order_line", "ol_w_id, ol_d_id, ol_o_id, ol_number", "ol_w_id", "ol_d_id", "ol_o_id", "ol_number")
	s.orderLine = l
	s.olOID = l.add("ol_o_id", ki, "INTEGER", 20, det)
	s.olDID = structural(l, "ol_d_id")
	s.olWID = structural(l, "ol_w_id")
	s.olNumber = structural(l, "ol_number")
	s.olIID = structural(l, "ol_i_id")
	s.olSupplyWID = structural(l, "ol_supply_w_id")
	s.olDeliveryD = l.add("ol_delivery_d", kt, "", 50, rnd)
	s.olQuantity = l.add("ol_quantity", ki, "INTEGER", 50, rnd)
	s.olAmount = l.add("ol_amount", kd, "DECIMAL(6,2)", 50, rnd)
	s.olDistInfo = l.add("ol_dist_info", ks, "CHAR(24)", 100, rnd)

	i := tb("item", "i_id", "i_id")
	s.item = i
	s.iID = structural(i, "i_id")
	s.iImID = i.add("i_im_id", ki, "INTEGER", 100, rnd)
	s.iName = i.add("i_name", ks, "VARCHAR(24)", 100, rnd)
	s.iPrice = i.add("i_price", kd, "DECIMAL(5,2)", 50, rnd)
	s.iData = i.add("i_data", ks, "VARCHAR(50)", 100, rnd)

	st := tb("stock", "s_w_id, s_i_id", "s_w_id", "s_i_id")
	s.stock = st
	s.sIID = structural(st, "s_i_id")
	s.sWID = structural(st, "s_w_id")
	s.sQuantity = st.add("s_quantity", ki, "INTEGER", 50, rnd)
	for k := range s.sDist {
		s.sDist[k] = st.add(fmt.Sprintf("s_dist_%02d", k+1), ks, "CHAR(24)", 100, rnd)
	}
	s.sYtd = st.add("s_ytd", ki, "INTEGER", 50, rnd)
	s.sOrderCnt = st.add("s_order_cnt", ki, "INTEGER", 50, rnd)
	s.sRemoteCnt = st.add("s_remote_cnt", ki, "INTEGER", 50, rnd)
	s.sData = st.add("s_data", ks, "VARCHAR(50)", 100, rnd)

	idx := 0
	for _, t := range s.tables {
		for _, c := range t.cols {
			c.idx = idx
			idx++
		}
	}
	return s
}

func (s *schema) numCols() int {
	n := 0
	for _, t := range s.tables {
		n += len(t.cols)
	}
	return n
}

// tableNames in load order.
func (s *schema) tableNames() []string {
	out := make([]string, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.name
	}
	return out
}

// EncryptedColumn is one column a level encrypts, for results and reports.
type EncryptedColumn struct {
	Table  string        `json:"table"`
	Column string        `json:"column"`
	Scheme colenc.Scheme `json:"scheme"`
}

// encrypted lists the columns a level encrypts, and the number of business
// columns (all but the structural ones).
func (s *schema) encrypted(level int) (cols []EncryptedColumn, business int) {
	for _, t := range s.tables {
		for _, c := range t.cols {
			if c.level == 0 {
				continue
			}
			business++
			if level > 0 && c.level <= level {
				cols = append(cols, EncryptedColumn{Table: t.name, Column: c.name, Scheme: c.scheme})
			}
		}
	}
	return cols, business
}

// ciphertextMax bounds a ciphertext: Tink's 5-byte prefix, a 12-byte nonce
// and 16-byte tag (rnd) or 16-byte SIV (det), the kind byte and 9 bytes of
// number or the text.
func (c *column) ciphertextMax() int {
	n := 10
	if c.kind == colenc.KindText {
		n = 1 + c.maxLen
	}
	return 5 + 12 + 16 + n
}

// createSQL is the table's CREATE TABLE at a level.
func (t *table) createSQL(d engine.Dialect, cd colenclayer.EngineSQL, level int, suffix string) string {
	var defs []string
	for _, c := range t.cols {
		typ := c.sql
		switch {
		case c.level > 0 && c.level <= level:
			typ = cd.BinaryType(c.ciphertextMax())
		case c.kind == colenc.KindTime:
			typ = d.Timestamp
		}
		null := " NOT NULL"
		if c.name == "o_carrier_id" || c.name == "ol_delivery_d" {
			null = ""
		}
		defs = append(defs, c.name+" "+typ+null)
	}
	if len(t.pk) > 0 {
		defs = append(defs, "PRIMARY KEY ("+strings.Join(t.pk, ", ")+")")
	}
	return fmt.Sprintf("CREATE TABLE %s (%s) %s", t.name, strings.Join(defs, ", "), suffix)
}
