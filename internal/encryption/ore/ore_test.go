package ore

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

func testKey(t *testing.T) *Key {
	t.Helper()
	raw := make([]byte, 64)
	for i := range raw {
		raw[i] = byte(i)
	}
	k, err := NewKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sign(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestOrderOfRandomPairs compares 100,000 random pairs drawn from a pool of
// encrypted values that holds the edge values, negatives, neighbours and
// repeats (equal plaintexts under different nonces).
func TestOrderOfRandomPairs(t *testing.T) {
	k := testKey(t)
	r := rand.New(rand.NewPCG(7, 11))
	values := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 255, 256, -256, 65535, 65536}
	for len(values) < 1500 {
		switch r.IntN(4) {
		case 0:
			values = append(values, r.Int64())
		case 1:
			values = append(values, -r.Int64N(1<<20))
		case 2:
			values = append(values, values[r.IntN(len(values))]) // a repeat
		default:
			values = append(values, values[r.IntN(len(values))]+1) // a neighbour
		}
	}
	cts := make([][]byte, len(values))
	lefts := make([][]byte, len(values))
	for i, v := range values {
		ct, err := k.Encrypt(v)
		if err != nil {
			t.Fatal(err)
		}
		cts[i] = ct
		if lefts[i], err = k.Left(v); err != nil {
			t.Fatal(err)
		}
	}
	for n := 0; n < 100000; n++ {
		i, j := r.IntN(len(values)), r.IntN(len(values))
		want := sign(values[i], values[j])
		for _, pair := range [][2][]byte{{cts[i], cts[j]}, {lefts[i], cts[j]}, {cts[i], lefts[j]}} {
			got, err := Compare(pair[0], pair[1])
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("Compare(%d, %d) = %d, want %d (lengths %d, %d)", values[i], values[j], got, want, len(pair[0]), len(pair[1]))
			}
		}
		// The paper's comparison, block by block with no shortcut, agrees.
		if got := paperCompare(cts[i], cts[j]); got != want {
			t.Fatalf("paper comparison of %d, %d = %d, want %d", values[i], values[j], got, want)
		}
	}
}

// paperCompare is Lewi-Wu's comparison as published: H at every block
// from the first until one is non-zero, using only a's left part and b's
// right part.
func paperCompare(a, b []byte) int {
	for i := 0; i < blocks; i++ {
		if c := compareAt(i, a[:leftLen], b[leftLen:]); c != 0 {
			return c
		}
	}
	return 0
}

func TestTwoLeftPartsDoNotCompare(t *testing.T) {
	k := testKey(t)
	a, _ := k.Left(1)
	b, _ := k.Left(2)
	if _, err := Compare(a, b); err != ErrTwoLefts {
		t.Fatalf("Compare(left, left) error %v, want ErrTwoLefts", err)
	}
	if c, err := Compare(a, a); err != nil || c != 0 {
		t.Fatalf("Compare(left, same left) = %d, %v", c, err)
	}
}

// TestEqualValuesDifferOnDisk: two encryptions of one value compare equal
// but are different bytes (the right part is randomized).
func TestEqualValuesDifferOnDisk(t *testing.T) {
	k := testKey(t)
	a, _ := k.Encrypt(42)
	b, _ := k.Encrypt(42)
	if string(a) == string(b) {
		t.Fatal("two encryptions of 42 are identical")
	}
	if c, _ := Compare(a, b); c != 0 {
		t.Fatalf("Compare(42, 42) = %d", c)
	}
}

// TestVector pins the construction: a fixed key and nonce give this
// ciphertext (SHA-256 of it), so a change to any primitive shows.
func TestVector(t *testing.T) {
	k := testKey(t)
	var nonce [nonceLen]byte
	for i := range nonce {
		nonce[i] = byte(0xa0 + i)
	}
	ct, err := k.encrypt(-42, nonce)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(ct)
	if got := hex.EncodeToString(sum[:]); got != vector {
		t.Fatalf("ciphertext digest %s, want %s", got, vector)
	}
	if len(ct) != CiphertextLen {
		t.Fatalf("length %d", len(ct))
	}
}

func TestMalformed(t *testing.T) {
	if _, err := Compare(make([]byte, 3), make([]byte, CiphertextLen)); err == nil {
		t.Fatal("short ciphertext accepted")
	}
	if _, err := NewKey(make([]byte, 10)); err == nil {
		t.Fatal("short key accepted")
	}
}

// A key is bound to its ciphertexts: another key's left part does not order
// against this key's right part (the comparison is then noise).
func TestOtherKeyDoesNotOrder(t *testing.T) {
	k := testKey(t)
	raw, _ := GenerateKey()
	other, _ := NewKey(raw)
	wrong := 0
	for v := int64(0); v < 200; v++ {
		a, _ := other.Encrypt(v)
		b, _ := k.Encrypt(100)
		if c, _ := Compare(a, b); c != sign(v, 100) {
			wrong++
		}
	}
	if wrong < 50 {
		t.Fatalf("only %d of 200 comparisons across keys were wrong", wrong)
	}
}

func BenchmarkEncrypt(b *testing.B) {
	raw, _ := GenerateKey()
	k, _ := NewKey(raw)
	for i := 0; i < b.N; i++ {
		if _, err := k.Encrypt(int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLeft(b *testing.B) {
	raw, _ := GenerateKey()
	k, _ := NewKey(raw)
	for i := 0; i < b.N; i++ {
		if _, err := k.Left(int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	raw, _ := GenerateKey()
	k, _ := NewKey(raw)
	x, _ := k.Encrypt(1 << 40)
	y, _ := k.Encrypt(1<<40 + 1)
	for i := 0; i < b.N; i++ {
		if _, err := Compare(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

const vector = "cdc9febd1962c52372ff6a4c519a60646c1377390284c4420c3d56722c4d80b2"
