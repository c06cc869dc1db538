package tpcc

import (
	"context"
	"encoding/hex"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
)

func TestLevelsFollowR3(t *testing.T) {
	s := newSchema()
	want := map[int]int{0: 0, 20: 15, 50: 36, 100: 71}
	for level, n := range want {
		cols, business := s.encrypted(level)
		if business != 71 || len(cols) != n {
			t.Errorf("level %d: %d of %d business columns, want %d of 71", level, len(cols), business, n)
		}
	}
	// Deterministic exactly where a transaction looks rows up or needs
	// equality; randomized elsewhere.
	det := map[string]bool{"customer.c_id": true, "customer.c_last": true, "orders.o_id": true, "orders.o_c_id": true,
		"new_order.no_o_id": true, "order_line.ol_o_id": true, "history.h_c_id": true}
	cols, _ := s.encrypted(100)
	for _, c := range cols {
		if (c.Scheme == colenc.Det) != det[c.Table+"."+c.Column] {
			t.Errorf("%s.%s is %s", c.Table, c.Column, c.Scheme)
		}
	}
	// The 20% level is identifiers and customer personal data only.
	cols, _ = s.encrypted(20)
	for _, c := range cols {
		if !(strings.HasSuffix(c.Column, "_id") || c.Table == "customer") {
			t.Errorf("20%% level encrypts %s.%s", c.Table, c.Column)
		}
	}
}

// A randomized ciphertext is bound to its row by the row key's plaintext,
// so the row key itself must be readable without it: structural or det.
func TestRowKeysAreReadableFirst(t *testing.T) {
	s := newSchema()
	for _, tb := range s.tables {
		for _, name := range strings.Split(tb.rowKey, ", ") {
			var col *column
			for _, c := range tb.cols {
				if c.name == name {
					col = c
				}
			}
			if col == nil {
				t.Fatalf("%s: row key column %s missing", tb.name, name)
			}
			if col.level != 0 && col.scheme != colenc.Det {
				t.Errorf("%s.%s is in the row key but %s", tb.name, name, col.scheme)
			}
		}
	}
}

func TestParseUnits(t *testing.T) {
	cases := []struct {
		in    string
		scale uint8
		want  int64
	}{
		{"12.34", 2, 1234}, {"-10.00", 2, -1000}, {"0.1234", 4, 1234}, {"5", 2, 500}, {"300000.0", 2, 30000000}, {"-0.5", 2, -50},
	}
	for _, c := range cases {
		got, err := parseUnits([]byte(c.in), c.scale)
		if err != nil || got != c.want {
			t.Errorf("parseUnits(%q, %d) = %d, %v; want %d", c.in, c.scale, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", "1.2.3", "abc"} {
		if _, err := parseUnits([]byte(bad), 2); err == nil {
			t.Errorf("parseUnits(%q) accepted", bad)
		}
	}
}

func TestRandomData(t *testing.T) {
	g := newRNG(1, 2)
	if LastName(0) != "BARBARBAR" || LastName(371) != "PRICALLYOUGHT" || LastName(999) != "EINGEINGEING" {
		t.Fatalf("last names: %s %s %s", LastName(0), LastName(371), LastName(999))
	}
	original := 0
	for i := 0; i < 20000; i++ {
		if n := g.NURand(1023, cCID, 1, 3000); n < 1 || n > 3000 {
			t.Fatalf("NURand out of range: %d", n)
		}
		if n := g.NURand(8191, cOLIID, 1, items); n < 1 || n > items {
			t.Fatalf("NURand out of range: %d", n)
		}
		if s := g.AString(8, 16); len(s) < 8 || len(s) > 16 {
			t.Fatalf("a-string length %d", len(s))
		}
		d := g.Data()
		if len(d) < 26 || len(d) > 50 {
			t.Fatalf("data length %d", len(d))
		}
		if strings.Contains(d, "ORIGINAL") {
			original++
		}
		if z := g.Zip(); len(z) != 9 || !strings.HasSuffix(z, "11111") {
			t.Fatalf("zip %q", z)
		}
	}
	if original < 1600 || original > 2400 {
		t.Errorf("%d of 20000 data strings carry ORIGINAL, want about 10%%", original)
	}
	// NURand is skewed: the most frequent customer is far above uniform.
	hits := map[int]int{}
	for i := 0; i < 300000; i++ {
		hits[g.NURand(1023, cCID, 1, 3000)]++
	}
	top := 0
	for _, n := range hits {
		top = max(top, n)
	}
	if top < 300 {
		t.Errorf("NURand looks uniform: top customer drawn %d times of 300000", top)
	}
}

func TestCodecRoundTripsAndBinding(t *testing.T) {
	dir := t.TempDir()
	p := colenc.Paths{MasterKey: dir + "/m.json", Keyset: dir + "/k.json"}
	cipher, created, err := colenc.OpenForPrepare(p)
	if err != nil || !created {
		t.Fatalf("keys: %v %v", created, err)
	}
	s := newSchema()
	plain, err := newCodec(s, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := newCodec(s, 100, cipher)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 22, 6, 30, 1, 123456000, time.UTC)
	for _, k := range []*codec{plain, enc} {
		row := AppendRowKey(nil, 1, 2, 3)
		a, err := k.Dec(s.cBalance, row, -1234)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := k.GetDec(s.cBalance, row, a.Str); err != nil || got != -1234 {
			t.Errorf("decimal: %d %v", got, err)
		}
		a, _ = k.Int(s.cPaymentCnt, row, 42)
		b := a.Str
		if b == nil {
			b = []byte("42") // plaintext integers travel as Int
		}
		if got, err := k.GetInt(s.cPaymentCnt, row, b); err != nil || got != 42 {
			t.Errorf("int: %d %v", got, err)
		}
		a, _ = k.Text(s.cLast, nil, "BARBARBAR")
		if got, err := k.GetText(s.cLast, nil, a.Str); err != nil || got != "BARBARBAR" {
			t.Errorf("text: %q %v", got, err)
		}
		a, _ = k.Time(s.hDate, row, when)
		if got, err := k.GetTime(s.hDate, row, a.Str); err != nil || !strings.HasPrefix(got, "2026-11-22 06:30:01.123456") {
			t.Errorf("time: %q %v", got, err)
		}
	}
	// Encrypted: ciphertext, bound to column and row.
	row := AppendRowKey(nil, 1, 2, 3)
	a, _ := enc.Text(s.cStreet1, row, "Main Street 1")
	if strings.Contains(string(a.Str), "Main Street") {
		t.Fatal("plaintext visible in the ciphertext")
	}
	if _, err := enc.GetText(s.cStreet2, row, a.Str); err == nil {
		t.Error("a value moved to another column decrypted")
	}
	if _, err := enc.GetText(s.cStreet1, AppendRowKey(nil, 1, 2, 4), a.Str); err == nil {
		t.Error("a value moved to another row decrypted")
	}
	// Det columns: equal values give equal ciphertexts, so lookups work.
	x, _ := enc.Int(s.cID, nil, 7)
	y, _ := enc.Int(s.cID, nil, 7)
	if string(x.Str) != string(y.Str) {
		t.Error("det ciphertexts of equal values differ")
	}
}

func TestCreateSQLUsesBinaryForEncryptedColumns(t *testing.T) {
	s := newSchema()
	d := engine.Dialect{Timestamp: "TIMESTAMP"}
	cd := colenclayer.EngineSQL{BinaryType: func(n int) string { return "VARBINARY(" + itoa(n) + ")" }}
	plain := s.customer.createSQL(d, cd, 0, "")
	if strings.Contains(plain, "VARBINARY") || !strings.Contains(plain, "c_last VARCHAR(16)") {
		t.Errorf("plaintext customer: %s", plain)
	}
	l20 := s.customer.createSQL(d, cd, 20, "")
	if !strings.Contains(l20, "c_last VARBINARY(") || !strings.Contains(l20, "c_balance DECIMAL(12,2)") {
		t.Errorf("20%% customer: %s", l20)
	}
	if !strings.Contains(l20, "PRIMARY KEY (c_w_id, c_d_id, c_id)") {
		t.Errorf("no primary key: %s", l20)
	}
}

func TestKeyingAndThinkTimes(t *testing.T) {
	wk := &worker{w: &Workload{o: Options{Warehouses: 1, ThinkTime: true}}, g: newRNG(3, 4), home: 1}
	var keyOnly, total time.Duration
	for i := 0; i < 2000; i++ {
		d := wk.Pause()
		key := time.Duration(keying[wk.in.typ] * float64(time.Second))
		if i == 0 && d != key {
			t.Fatalf("first pause %v: only the keying time %v is due", d, key)
		}
		if d < key || d > key+10*time.Duration(think[wk.prev]*float64(time.Second)) {
			t.Fatalf("pause %v for %s after %s", d, txNames[wk.in.typ], txNames[wk.prev])
		}
		wk.prev = wk.in.typ
		wk.start = time.Now()
		keyOnly += key
		total += d
	}
	// Think times are negative exponential with the specification's means
	// (about 11.4 s over the mix).
	if mean := (total - keyOnly).Seconds() / 2000; mean < 9 || mean > 14 {
		t.Errorf("mean think time %.1f s", mean)
	}
	off := &worker{w: &Workload{o: Options{Warehouses: 1}}, g: newRNG(3, 4)}
	if off.Pause() != 0 {
		t.Error("pacing without --think-time")
	}
}

// configConn answers checkConfig's query with one prepared config row.
type configConn struct {
	engine.Conn
	row []string
}

func (c configConn) Query(context.Context, string) ([][]string, error) { return [][]string{c.row}, nil }

// Finding 7: after `keys rotate` a TPC-C run is refused (its det lookups
// would find no rows), as an enc_* run is.
func TestRunRefusesDataPreparedBeforeARotation(t *testing.T) {
	dir := t.TempDir()
	p := colenc.Paths{MasterKey: dir + "/m.json", Keyset: dir + "/k.json"}
	cipher, _, err := colenc.OpenForPrepare(p)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := cipher.Encrypt(keyCheckColumn, nil, colenc.Text(keyCheck))
	if err != nil {
		t.Fatal(err)
	}
	w := &Workload{o: Options{Warehouses: 1, Level: 50, Keys: p}}
	conn := configConn{row: []string{"1", "50", hex.EncodeToString(ct)}}
	if err := w.checkConfig(context.Background(), conn, cipher); err != nil {
		t.Fatalf("same keyset: %v", err)
	}
	if err := colenc.Rotate(p); err != nil {
		t.Fatal(err)
	}
	rotated, err := colenc.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.checkConfig(context.Background(), conn, rotated); err == nil || !strings.Contains(err.Error(), "primary key changed") {
		t.Errorf("after a rotation: %v", err)
	}
}

func TestReadsOneSnapshot(t *testing.T) {
	for level, want := range map[string]bool{"read committed": false, "READ-COMMITTED": false, "READ-UNCOMMITTED": false,
		"repeatable read": true, "REPEATABLE-READ": true, "serializable": true, "SERIALIZABLE": true} {
		if got := readsOneSnapshot(level); got != want {
			t.Errorf("%q: %v", level, got)
		}
	}
}
