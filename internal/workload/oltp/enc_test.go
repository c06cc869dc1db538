package oltp

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/randgen"
)

func TestParseEncrypt(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "none",
		"none":                "none",
		"id,k,c,pad":          "id:det,k:rnd,c:rnd,pad:rnd",
		"pad, c":              "c:rnd,pad:rnd",
		"id:ore,k:ashe,c,pad": "id:ore,k:ashe,c:rnd,pad:rnd",
		"k:ore,id:det,c:det":  "id:det,k:ore,c:det",
		"k:det":               "k:det",
	} {
		e, err := parseEncrypt(in)
		if err != nil || e.String() != want {
			t.Errorf("parseEncrypt(%q) = %s, %v; want %s", in, e, err, want)
		}
	}
	for _, bad := range []string{"id:rnd", "c:ore", "pad:ashe", "id:ashe", "x", "k,k", "k:aes"} {
		if _, err := parseEncrypt(bad); err == nil {
			t.Errorf("parseEncrypt(%q) accepted", bad)
		}
	}
}

// Where predicates run decides what the server sees and does: plaintext
// and det equality and ore (with the server's type) on the server, det
// ranges as IN lists, rnd and ore without the type in the client.
func TestPredicateModes(t *testing.T) {
	e, _ := parseEncrypt("id:ore,k:rnd,c,pad")
	if e.mode(colID, true, "ore") != onServer || e.mode(colID, true, "") != inClient || e.mode(colK, false, "ore") != inClient {
		t.Error("ore / rnd modes")
	}
	d, _ := parseEncrypt("id:det,k:det")
	if d.mode(colID, false, "") != onServer || d.mode(colID, true, "") != inList || d.mode(colK, true, "ore") != inList {
		t.Error("det modes")
	}
	if got := d.predicates("enc_range_sum_k", ""); !strings.Contains(got, "IN list") {
		t.Errorf("predicates: %s", got)
	}
	if got := e.sqlType(colID, "", func(n int) string { return "VARBINARY" }); got != "VARBINARY" {
		t.Errorf("ore id without a server type: %s", got)
	}
}

// A row's values are bound to the row key read from the stored id, and
// ashe k decrypts only with the row's integer id.
func TestRowEncoderBindsRows(t *testing.T) {
	c := newTestCipher(t)
	for _, spec := range []string{"id:ore,k:ashe,c,pad", "id:det,k:rnd,c:det,pad", "k,c,pad"} {
		e, _ := parseEncrypt(spec)
		r, err := newRowEncoder(e, c, 1, kCopies{})
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.row(7, 42, []byte("c-value"), []byte("pad-value"), 9)
		if err != nil {
			t.Fatal(err)
		}
		var key []byte
		if e[colID] == "" {
			key = []byte("7")
		} else if key, err = r.rowKey(row[colID].Str); err != nil {
			t.Fatal(err)
		}
		if id, err := r.intOf(colID, nil, []byte(argOf(row[colID]))); err != nil || id != 7 {
			t.Fatalf("%s: id = %d, %v", spec, id, err)
		}
		// The lookup argument for id 7 finds the same key.
		_, lookupKey, err := r.idLookup(7)
		if err != nil || string(lookupKey) != string(key) {
			t.Fatalf("%s: lookup key %x, stored key %x (%v)", spec, lookupKey, key, err)
		}
		if s, err := r.textOf(colC, key, row[colC].Str); err != nil || s != "c-value" {
			t.Fatalf("%s: c = %q, %v", spec, s, err)
		}
		if e[colC] == colenc.Rnd {
			_, otherKey, _ := r.idLookup(8)
			if _, err := r.textOf(colC, otherKey, row[colC].Str); err == nil {
				t.Fatalf("%s: c decrypted for another row", spec)
			}
		}
		var k int64
		if e[colK] == colenc.Ashe {
			k, err = r.asheK([]byte(argText(row[4])), []byte(argText(row[colK])))
		} else {
			k, err = r.intOf(colK, key, row[colK].Str)
		}
		if err != nil || k != 42 {
			t.Fatalf("%s: k = %d, %v", spec, k, err)
		}
	}
}

func argText(a engine.Arg) string {
	return strconv.FormatInt(a.Int, 10)
}

func argOf(a engine.Arg) string {
	if a.Str != nil {
		return string(a.Str)
	}
	return argText(a)
}

// kRanks hands out 1..n in k's order: each k's identifiers are
// consecutive and follow those of every smaller k.
func TestKRanksFollowKOrder(t *testing.T) {
	const n = 500
	o := randgen.Defaults()
	o.Seed = 42
	rank := kRanks(randgen.New(o, 5001), n)
	src := randgen.New(o, 5001)
	type row struct {
		k  int64
		id uint64
	}
	var rows []row
	var cv, pv []byte
	for range n {
		var k int64
		cv, pv, k = drawRow(src, cv, pv, n)
		rows = append(rows, row{k, rank(k)})
	}
	seen := map[uint64]bool{}
	for _, a := range rows {
		if a.id < 1 || a.id > n || seen[a.id] {
			t.Fatalf("identifier %d out of 1..%d or repeated", a.id, n)
		}
		seen[a.id] = true
		for _, b := range rows {
			if a.k < b.k && a.id > b.id {
				t.Fatalf("k %d has identifier %d above k %d's %d", a.k, a.id, b.k, b.id)
			}
		}
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "7": 7, "4096": 4096, "999999999999999999": 999999999999999999} {
		if n, ok := parseCount([]byte(in)); !ok || n != want {
			t.Errorf("parseCount(%q) = %d, %v", in, n, ok)
		}
	}
	for _, in := range []string{"", "-1", "1.5", " 3", "1000000000000000000"} {
		if _, ok := parseCount([]byte(in)); ok {
			t.Errorf("parseCount(%q) accepted", in)
		}
	}
}

// A cached integer ciphertext is the bytes a fresh encryption gives, a hit
// costs no allocation, and the cache stops growing at its bound.
func TestIntCiphertextsCache(t *testing.T) {
	c := newTestCipher(t)
	f, err := c.Field(colenc.Column{Table: "sbtest1", Name: "id", Scheme: colenc.Det})
	if err != nil {
		t.Fatal(err)
	}
	var cache intCiphertexts
	for v := int64(1); v <= 3; v++ {
		got, err := cache.encrypt(f, v, 2)
		fresh, err2 := f.Encrypt(nil, colenc.Int(v))
		if err != nil || err2 != nil || !bytes.Equal(got, fresh) {
			t.Fatalf("%d: cached %x, fresh %x (%v, %v)", v, got, fresh, err, err2)
		}
	}
	if len(cache) != 2 {
		t.Errorf("cache holds %d values, bound 2", len(cache))
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = cache.encrypt(f, 1, 2) }); n != 0 {
		t.Errorf("a hit allocates %.0f times", n)
	}
}

// newTestCipher is a cipher over fresh keys in the test's directory.
func newTestCipher(t *testing.T) *colenc.Cipher {
	t.Helper()
	dir := t.TempDir()
	p := colenc.Paths{MasterKey: filepath.Join(dir, "m.json"), Keyset: filepath.Join(dir, "k.json")}
	if _, err := colenc.Init(p); err != nil {
		t.Fatal(err)
	}
	c, err := colenc.Open(p)
	if err == nil {
		c, err = c.ForDataSet(colenc.NewDataSet())
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAppendIDList(t *testing.T) {
	got, err := appendIDList(nil, []byte("7,1,18446744073709551615,42"))
	if err != nil || !slices.Equal(got, []uint64{7, 1, 18446744073709551615, 42}) {
		t.Fatalf("parsed %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "1,", "x", "1,-2", "18446744073709551616", "1 2"} {
		if _, err := appendIDList(nil, []byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	buf, list := make([]uint64, 0, 8), []byte("3,1,2")
	if n := testing.AllocsPerRun(100, func() { buf, _ = appendIDList(buf[:0], list) }); n != 0 {
		t.Errorf("%v allocations per list", n)
	}
}

// An IN list holds the det ciphertext of every value of the range, once,
// in byte order (the order the server would sort it into).
func TestInListInByteOrder(t *testing.T) {
	e, err := parseEncrypt("id:det")
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRowEncoder(e, newTestCipher(t), 1, kCopies{})
	if err != nil {
		t.Fatal(err)
	}
	wk := &encWorker{args: []engine.Arg{{Int: 7}}}
	if err := wk.appendInList(&encTable{enc: r}, colID, 10, 109); err != nil {
		t.Fatal(err)
	}
	list := wk.args[1:]
	if wk.args[0].Int != 7 || len(list) != 100 {
		t.Fatalf("args %d long, first %+v: want the earlier argument kept and 100 values", len(wk.args), wk.args[0])
	}
	if !slices.IsSortedFunc(list, engine.ByBytes) {
		t.Error("IN list not in byte order")
	}
	for v := int64(10); v <= 109; v++ {
		want, err := r.bound(colID, v)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list, func(a engine.Arg) bool { return bytes.Equal(a.Str, want.Str) }) {
			t.Fatalf("the ciphertext of %d is missing", v)
		}
	}
}
