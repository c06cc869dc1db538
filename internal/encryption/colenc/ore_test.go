package colenc

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/ore"
	"github.com/encbench/encbench/internal/encryption/ore/oretest"
)

var sbK = Column{Table: "sbtest1", Name: "k", Scheme: Ore}

func TestOreValuesOrderAndDecrypt(t *testing.T) {
	_, c := newKeys(t)
	r := rand.New(rand.NewPCG(3, 4))
	values := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 10000, 10001}
	for len(values) < 200 {
		values = append(values, r.Int64N(20000)-10000)
	}
	stored := make([][]byte, len(values))
	bounds := make([][]byte, len(values))
	for i, v := range values {
		var err error
		if stored[i], err = c.Encrypt(sbK, nil, Int(v)); err != nil {
			t.Fatal(err)
		}
		if bounds[i], err = c.OreToken(sbK, v); err != nil {
			t.Fatal(err)
		}
		got, err := c.Decrypt(sbK, nil, stored[i])
		if err != nil || got.I != v {
			t.Fatalf("decrypt %d: %v, %v", v, got, err)
		}
	}
	for n := 0; n < 20000; n++ {
		i, j := r.IntN(len(values)), r.IntN(len(values))
		want := 0
		if values[i] < values[j] {
			want = -1
		} else if values[i] > values[j] {
			want = 1
		}
		for _, pair := range [][2][]byte{{stored[i], stored[j]}, {bounds[i], stored[j]}, {stored[i], bounds[j]}} {
			if got, err := OreCompare(pair[0], pair[1]); err != nil || got != want {
				t.Fatalf("OreCompare(%d, %d) = %d, %v; want %d", values[i], values[j], got, err, want)
			}
		}
	}
	if _, err := OreCompare(bounds[0], bounds[1]); err == nil {
		t.Fatal("two bounds compared")
	}
	if _, err := c.Encrypt(sbK, nil, Text("x")); err == nil {
		t.Fatal("ore took text")
	}
	// The stored value is bound to its column like det: another column's
	// AEAD part does not decrypt.
	if _, err := c.Decrypt(Column{Table: "sbtest1", Name: "id", Scheme: Ore}, nil, stored[0]); err == nil {
		t.Fatal("an ore value decrypted as another column")
	}
}

// A stored value decrypts read whole, bound to its column and row; a change
// to any one of its bytes, or a move to another row, is detected.
func TestOreValueAuthenticatedWhole(t *testing.T) {
	_, c := newKeys(t)
	row := []byte("row 7")
	for _, v := range []int64{0, -5, 4711, math.MaxInt64} {
		stored, err := c.Encrypt(sbK, row, Int(v))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.DecryptOre(sbK, row, stored); err != nil || got.I != v {
			t.Fatalf("%d: %v, %v", v, got, err)
		}
		if _, err := c.DecryptOre(Column{Table: "sbtest2", Name: "k", Scheme: Ore}, row, stored); err == nil {
			t.Fatal("a value decrypted as another table's column")
		}
		if _, err := c.DecryptOre(sbK, []byte("row 8"), stored); err == nil {
			t.Fatal("a value moved to another row decrypted")
		}
		for i := range stored {
			changed := append([]byte(nil), stored...)
			changed[i] ^= 1 << (i % 8)
			if got, err := c.DecryptOre(sbK, row, changed); err == nil {
				t.Fatalf("%d with byte %d changed decrypted to %d", v, i, got.I)
			}
		}
	}
	if _, err := c.DecryptOre(Column{Table: "sbtest1", Name: "k", Scheme: Rnd}, row, nil); err == nil {
		t.Fatal("DecryptOre took a rnd column")
	}
}

// TestOrePublicDataForgery builds, from stored values and public data
// only, a value whose left part mixes two values' blocks and whose right
// bits are set so that both directions of every comparison agree. It
// compares without error against every stored value but the one whose
// last block it copied (the equal-last-block check), so a server cannot
// tell it from a genuine value, and the client's MAC check rejects it on
// read.
func TestOrePublicDataForgery(t *testing.T) {
	_, c := newKeys(t)
	const step = 1000003 // values that differ in their lower three blocks
	stored := make([][]byte, 200)
	for i := range stored {
		stored[i], _ = c.Encrypt(sbK, []byte(strconv.Itoa(i)), Int(int64(i+1)*step))
	}
	x, y := stored[100], stored[7]
	const mixed = 5 // x and y differ in block 5
	leftAt := func(v []byte, i int) []byte { return v[oreHeaderLen+i*17 : oreHeaderLen+(i+1)*17] }
	if bytes.Equal(leftAt(x, mixed), leftAt(y, mixed)) {
		t.Fatal("the test's values share block 5")
	}
	forged := append([]byte(nil), x...)
	copy(leftAt(forged, mixed), leftAt(y, mixed))
	bodies := make([][]byte, len(stored))
	for i, g := range stored {
		bodies[i] = g[oreHeaderLen : OreValueLen-oreMACLen]
	}
	if err := oretest.Agree(forged[oreHeaderLen:OreValueLen-oreMACLen], bodies); err != nil {
		t.Fatal(err)
	}
	agree := 0
	for _, g := range stored {
		if _, err := OreCompare(forged, g); err == nil {
			agree++
		}
	}
	if agree < len(stored)-2 {
		t.Fatalf("the forgery compared without error against %d of %d values: the test did not build what a server sees", agree, len(stored))
	}
	if _, err := OreCompare(forged, x); err == nil {
		t.Error("a value sharing x's last block but not its left part compared with x")
	}
	if v, err := c.Decrypt(sbK, []byte("100"), forged); err == nil {
		t.Fatalf("the forged value read back as %d", v.I)
	}
}

// Rotation rule: the ORE key follows the primary det key, so values written
// before a rotation do not compare with bounds made after it; the
// comparison is refused (not silently wrong) until the column is written
// again. Values and bounds under one key keep their order.
func TestOreAcrossRotation(t *testing.T) {
	p, c := newKeys(t)
	old, _ := c.Encrypt(sbK, nil, Int(5))
	if err := Rotate(p); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	bound, _ := c2.OreToken(sbK, 7)
	if _, err := OreCompare(bound, old); err == nil || !strings.Contains(err.Error(), "different keys") {
		t.Fatalf("cross-key comparison: %v", err)
	}
	if v, err := c2.Decrypt(sbK, nil, old); err != nil || v.I != 5 {
		t.Fatalf("old value after rotation: %v, %v", v, err)
	}
	fresh, _ := c2.Encrypt(sbK, nil, Int(6))
	if got, err := OreCompare(bound, fresh); err != nil || got != 1 {
		t.Fatalf("same-key comparison after rotation: %d, %v", got, err)
	}
}

func TestAsheSumsTelescope(t *testing.T) {
	_, c := newKeys(t)
	col := Column{Table: "sbtest1", Name: "k", Scheme: Ashe}
	sum := new(big.Int)
	var want int64
	for id := uint64(40); id <= 139; id++ {
		m := int64(id)*7 - 300
		ct, err := c.AsheEncrypt(col, id, m)
		if err != nil {
			t.Fatal(err)
		}
		if ct == m {
			t.Fatalf("ashe left %d in the clear", m)
		}
		if got, _ := c.AsheDecrypt(col, id, ct); got != m {
			t.Fatalf("decrypt %d: %d", m, got)
		}
		if got, _ := c.AsheDecrypt(col, id+1, ct); got == m {
			t.Fatal("a value decrypted under another row's id")
		}
		sum.Add(sum, big.NewInt(ct))
		want += m
	}
	got, err := c.AsheDecryptSum(col, sum.String(), []IDRange{{40, 139}})
	if err != nil || got != want {
		t.Fatalf("sum %d, %v; want %d", got, err, want)
	}
	// k = k + AsheOne on the server adds 1 to the plaintext.
	ct, _ := c.AsheEncrypt(col, 5, 41)
	if got, _ := c.AsheDecrypt(col, 5, ct+AsheOne); got != 42 {
		t.Fatalf("ct+1 decrypts to %d", got)
	}
}

// rotateRight flips every bit of a stored value's right part: a forgery
// that keeps the real header, left part and nonce and passes the form
// check.
func rotateRight(v []byte) []byte {
	out := append([]byte(nil), v...)
	for i := OreIdentityFrom + ore.TailLen; i < len(out)-oreMACLen; i++ {
		out[i] ^= 0xff
	}
	return out
}

// Finding 3: a forged value is refused in either argument position, and
// values of an impossible form are refused outright.
func TestOreCompareRefusesForgedValues(t *testing.T) {
	_, c := newKeys(t)
	a, _ := c.Encrypt(sbK, []byte("r1"), Int(1000))
	b, _ := c.Encrypt(sbK, []byte("r2"), Int(5))
	bad := rotateRight(b)
	for _, pair := range [][2][]byte{{a, bad}, {bad, a}} {
		if got, err := OreCompare(pair[0], pair[1]); err == nil {
			t.Errorf("a forged value compared: %d", got)
		}
	}
	for name, v := range map[string][]byte{"truncated": b[:len(b)-40], "old version": append([]byte{'O', 2}, b[2:]...), "too long": append(append([]byte{}, b...), 0)} {
		if _, err := OreCompare(a, v); err == nil {
			t.Errorf("%s value compared", name)
		}
		if _, err := c.Decrypt(sbK, []byte("r2"), v); err == nil {
			t.Errorf("%s value decrypted", name)
		}
	}
}

// Finding 4: every column has its own ORE key id, so a bound made for
// another column is refused instead of giving a meaningless order.
func TestOreKeyIDsDifferPerColumn(t *testing.T) {
	_, c := newKeys(t)
	v, _ := c.Encrypt(sbK, nil, Int(10))
	other, _ := c.OreToken(Column{Table: "sbtest2", Name: "k", Scheme: Ore}, 10)
	if _, err := OreCompare(other, v); err == nil || !strings.Contains(err.Error(), "different keys") {
		t.Errorf("a bound of sbtest2.k against sbtest1.k: %v", err)
	}
	own, _ := c.OreToken(sbK, 10)
	if got, err := OreCompare(own, v); err != nil || got != 0 {
		t.Errorf("own bound: %d %v", got, err)
	}
}

// Finding 5: the nonce (which carries the value) is bound to its left
// part's identity block and its row: a value spliced from ORE(1000) and
// the nonce of 5, or moved to another row, does not decrypt (in full or
// read whole).
func TestOreNonceBoundToOrePartAndRow(t *testing.T) {
	_, c := newKeys(t)
	row := []byte("row-7")
	big, _ := c.Encrypt(sbK, row, Int(1000))
	small, _ := c.Encrypt(sbK, row, Int(5))
	nonceAt := OreIdentityFrom + OreIdentityLen
	spliced := append(append(append([]byte(nil), big[:nonceAt]...), small[nonceAt:nonceAt+16]...), big[nonceAt+16:]...)
	if v, err := c.Decrypt(sbK, row, spliced); err == nil {
		t.Errorf("spliced value decrypted to %d", v.I)
	}
	if _, err := c.Decrypt(sbK, []byte("row-8"), small); err == nil {
		t.Error("a value moved to another row decrypted")
	}
	if v, err := c.Decrypt(sbK, row, small); err != nil || v.I != 5 {
		t.Errorf("genuine value: %v %v", v, err)
	}
	if len(small) != OreValueLen || OreValueLen > 430 {
		t.Errorf("stored value of %d bytes (OreValueLen %d), want at most 430", len(small), OreValueLen)
	}
}

// SumMod64 is a server's exact sum modulo 2^64, as big.Int's Euclidean
// remainder gives it, for sums far beyond 64 bits of either sign; text
// that is not an integer is refused.
func TestSumMod64(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for _, s := range []string{"0", "1", "-1", "18446744073709551615", "18446744073709551616", "-18446744073709551617",
		"123456789012345678901234567890", "-98765432109876543210987654321"} {
		want, _ := new(big.Int).SetString(s, 10)
		want.Mod(want, two64)
		if got, ok := SumMod64([]byte(s)); !ok || got != want.Uint64() {
			t.Errorf("SumMod64(%s) = %d, %v; want %d", s, got, ok, want.Uint64())
		}
	}
	for _, s := range []string{"", "-", "1.5", "12a", " 1"} {
		if _, ok := SumMod64([]byte(s)); ok {
			t.Errorf("SumMod64(%q) accepted", s)
		}
	}
}
