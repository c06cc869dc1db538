package colenc

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/daead"
	"github.com/tink-crypto/tink-go/v2/daead/subtle"
)

// BenchmarkColenc is what bench/colenc.sh runs: each scheme's cost per
// field beside raw AES-256-GCM and Tink's AES-SIV on the same bytes, as
// sub-benchmarks of one run (with -count they alternate).
func BenchmarkColenc(b *testing.B) {
	_, c := newKeys(b)
	text := Text(strings.Repeat("x", 119)) // 120 bytes encoded
	pt := []byte("s" + strings.Repeat("x", 119))
	row := []byte("1/1/42")
	b.Run("raw-aes-gcm-120", func(b *testing.B) {
		blk, _ := aes.NewCipher(make([]byte, 32))
		g, _ := cipher.NewGCM(blk)
		nonce := make([]byte, 12)
		ct, out := make([]byte, 0, 256), make([]byte, 0, 256)
		b.ReportAllocs()
		for b.Loop() {
			ct = g.Seal(ct[:0], nonce, pt, nil)
			if _, err := g.Open(out[:0], nonce, ct, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tink-aes-siv-120", func(b *testing.B) {
		s, _ := subtle.NewAESSIV(make([]byte, 64))
		b.ReportAllocs()
		for b.Loop() {
			ct, _ := s.EncryptDeterministically(pt, row)
			if _, err := s.DecryptDeterministically(ct, row); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, col := range []Column{customerCity, customerLast} {
		// Like for like with raw GCM: the ciphertext into the caller's
		// buffer, checked and decrypted into the Field's scratch (what a
		// worker's read does, Field.Open).
		b.Run(string(col.Scheme)+"-120", func(b *testing.B) {
			f, _ := c.Field(col)
			ct := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if ct, err = f.Append(ct[:0], row, text); err != nil {
					b.Fatal(err)
				}
				if _, _, err := f.Open(row, ct); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A new ciphertext and a new Value each way: the results' two
		// allocations on top.
		b.Run(string(col.Scheme)+"-120-values", func(b *testing.B) {
			f, _ := c.Field(col)
			b.ReportAllocs()
			for b.Loop() {
				ct, err := f.Encrypt(row, text)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Decrypt(row, ct); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(col.Scheme)+"-decrypt-120", func(b *testing.B) {
			f, _ := c.Field(col)
			ct, _ := f.Encrypt(row, text)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Decrypt(row, ct); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("ore-encrypt-int64", func(b *testing.B) {
		f, _ := c.Field(sbK)
		r := rand.New(rand.NewPCG(1, 2))
		var ct []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if ct, err = f.Encrypt(row, Int(r.Int64())); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(ct)), "bytes/value")
	})
	// sysbench's k (uniform in 1..table size, 10,000 in colenc-sysbench):
	// every block's permutation is one a worker has cached, so this is F
	// and H alone, where random 64-bit values shuffle six blocks each.
	b.Run("ore-encrypt-sysbench-k", func(b *testing.B) {
		f, _ := c.Field(sbK)
		r := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Encrypt(row, Int(1+r.Int64N(10000))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ore-token-int64", func(b *testing.B) {
		f, _ := c.Field(sbK)
		r := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Token(r.Int64()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ore-decrypt-int64", func(b *testing.B) {
		f, _ := c.Field(sbK)
		ct, _ := f.Encrypt(row, Int(4711))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.DecryptOre(row, ct); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ore-compare", func(b *testing.B) {
		f, _ := c.Field(sbK)
		x, _ := f.Encrypt(row, Int(1<<40))
		y, _ := f.Encrypt(row, Int(1<<40+1))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := OreCompare(x, y); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ashe-encrypt-int64", func(b *testing.B) {
		f, _ := c.Field(Column{Table: "sbtest1", Name: "k", Scheme: Ashe})
		counter := &countingBlock{Block: f.ashe.prf}
		f.ashe = &asheKey{prf: counter}
		id := uint64(0)
		b.ReportAllocs()
		for b.Loop() {
			id++
			if _, err := f.AsheEncrypt(id, int64(id)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(counter.n)/float64(id), "aes/op")
	})
}

// TestFieldsAllocateOnlyTheirResults: encrypt + decrypt of a text value
// allocates the ciphertext and the decrypted string (rnd, det), Open
// nothing; ore
// encryption its result and the nonce's AES key schedule; ashe nothing.
func TestFieldsAllocateOnlyTheirResults(t *testing.T) {
	_, c := newKeys(t)
	text, row := Text(strings.Repeat("y", 119)), []byte("row")
	for _, col := range []Column{customerCity, customerLast} {
		f, _ := c.Field(col)
		if n := testing.AllocsPerRun(200, func() {
			ct, _ := f.Encrypt(row, text)
			if _, err := f.Decrypt(row, ct); err != nil {
				t.Fatal(err)
			}
		}); n > 2 {
			t.Errorf("%s encrypt+decrypt: %.1f allocations, want at most 2", col.Scheme, n)
		}
	}
	for _, col := range []Column{customerCity, customerLast} {
		f, _ := c.Field(col)
		ct, _ := f.Encrypt(row, text)
		if n := testing.AllocsPerRun(200, func() {
			if _, _, err := f.Open(row, ct); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s open: %.1f allocations, want none", col.Scheme, n)
		}
	}
	f, _ := c.Field(sbK)
	v := int64(0)
	if n := testing.AllocsPerRun(200, func() {
		v += 1 << 20 // a new prefix every time: permutations are computed
		if _, err := f.Encrypt(row, Int(v)); err != nil {
			t.Fatal(err)
		}
	}); n > 10 {
		t.Errorf("ore encryption: %.1f allocations, want at most 10", n)
	}
	// Reading a value back checks its MAC over all 430 bytes, in the
	// Field's scratch.
	stored, _ := f.Encrypt(row, Int(4711))
	if n := testing.AllocsPerRun(200, func() {
		if _, err := f.DecryptOre(row, stored); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("ore decryption: %.1f allocations, want none", n)
	}
	a, _ := c.Field(Column{Table: "sbtest1", Name: "k", Scheme: Ashe})
	counter := &countingBlock{Block: a.ashe.prf}
	a.ashe = &asheKey{prf: counter}
	id := uint64(0)
	if n := testing.AllocsPerRun(200, func() {
		id++
		if _, err := a.AsheEncrypt(id, 5); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("ashe encryption: %.1f allocations, want none", n)
	}
	if per := float64(counter.n) / float64(id); per > 4 {
		t.Errorf("ashe encryption: %.1f AES block operations, want at most 4", per)
	}
}

type countingBlock struct {
	cipher.Block
	n int
}

func (b *countingBlock) Encrypt(dst, src []byte) { b.n++; b.Block.Encrypt(dst, src) }

// TestSIVVectorRFC5297 is RFC 5297's deterministic example (appendix A.1,
// AES-SIV with a 256-bit key) through the same S2V and CTR code.
func TestSIVVectorRFC5297(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	k, err := newSIVKey(h("fffefdfc fbfaf9f8 f7f6f5f4 f3f2f1f0 f0f1f2f3 f4f5f6f7 f8f9fafb fcfdfeff"))
	if err != nil {
		t.Fatal(err)
	}
	var s sivScratch
	d := k.adState(h("10111213 14151617 18191a1b 1c1d1e1f 20212223 24252627"), &s)
	pt := h("11223344 55667788 99aabbcc ddee")
	out := append(make([]byte, 16), pt...)
	k.seal(out, 0, d, &s)
	if got, want := hex.EncodeToString(out), "85632d07c6e8f37f950acd320a2ecc9340c02b9690c4dc04daef7f6afe5c"; got != want {
		t.Fatalf("S2V/CTR output %s, want %s", got, want)
	}
	back, ok := k.open(nil, out, d, &s)
	if !ok || string(back) != string(pt) {
		t.Fatalf("open: %x %v", back, ok)
	}
	out[20] ^= 1
	if _, ok := k.open(nil, out, d, &s); ok {
		t.Fatal("a flipped bit opened")
	}
}

// TestFieldsMatchTink: every length from 0 to 100 bytes, both ways, the
// Fields' ciphertexts are Tink's: Tink's primitives from the same keyset
// decrypt them, and det's bytes are equal to Tink's.
func TestFieldsMatchTink(t *testing.T) {
	p, _ := newKeys(t)
	if err := Rotate(p); err != nil { // two keys: the prefix picks the key
		t.Fatal(err)
	}
	c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	ha, hd, _, err := load(p)
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := aead.New(ha)
	td, _ := daead.New(hd)
	rnd, _ := c.Field(customerCity)
	det, _ := c.Field(customerLast)
	row := []byte("3/7/1201")
	for n := 0; n <= 100; n++ {
		v := Text(strings.Repeat("é", n/2) + strings.Repeat("z", n%2))
		pt := append([]byte{byte(KindText)}, v.S...)
		ct, _ := rnd.Encrypt(row, v)
		if got, err := ta.Decrypt(ct, ad(nil, customerCity, row)); err != nil || string(got) != string(pt) {
			t.Fatalf("rnd, %d bytes: Tink decrypts %q, %v", n, got, err)
		}
		tct, _ := ta.Encrypt(pt, ad(nil, customerCity, row))
		if got, err := rnd.Decrypt(row, tct); err != nil || got != v {
			t.Fatalf("rnd, %d bytes: Tink's ciphertext decrypts to %v, %v", n, got, err)
		}
		dct, _ := det.Encrypt(nil, v)
		want, _ := td.EncryptDeterministically(pt, ad(nil, customerLast, nil))
		if string(dct) != string(want) {
			t.Fatalf("det, %d bytes: %x, Tink %x", n, dct, want)
		}
		if got, err := det.Decrypt(nil, want); err != nil || got != v {
			t.Fatalf("det, %d bytes: Tink's ciphertext decrypts to %v, %v", n, got, err)
		}
	}
}

// TestOpenChecksAsDecryptDoes: Open refuses what Decrypt refuses (another
// row for rnd, any changed byte) and gives Decrypt's value's bytes.
func TestOpenChecksAsDecryptDoes(t *testing.T) {
	_, c := newKeys(t)
	row := []byte("4/2/17")
	for _, col := range []Column{customerCity, customerLast} {
		f, _ := c.Field(col)
		ct, _ := f.Encrypt(row, Text("Ängelholm"))
		kind, payload, err := f.Open(row, ct)
		if err != nil || kind != KindText || string(payload) != "Ängelholm" {
			t.Fatalf("%s: %c %q %v", col.Scheme, kind, payload, err)
		}
		for i := range ct {
			bad := append([]byte(nil), ct...)
			bad[i] ^= 0x40
			if _, _, err := f.Open(row, bad); err == nil {
				t.Fatalf("%s: byte %d changed, still opened", col.Scheme, i)
			}
		}
		if _, _, err := f.Open([]byte("4/2/18"), ct); (err == nil) != (col.Scheme == Det) {
			t.Fatalf("%s: another row's key: %v", col.Scheme, err)
		}
	}
}
