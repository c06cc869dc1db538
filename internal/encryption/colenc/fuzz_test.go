package colenc

import (
	"testing"
)

// FuzzOreDecode: no bytes make ORE decoding or comparison panic; anything
// compared successfully is of a valid form, and a comparison is
// antisymmetric.
func FuzzOreDecode(f *testing.F) {
	c := fuzzCipher(f)
	v1, _ := c.Encrypt(sbK, []byte("r"), Int(5))
	v2, _ := c.Encrypt(sbK, []byte("r"), Int(-70000))
	b1, _ := c.OreToken(sbK, 9)
	f.Add(v1, v2)
	f.Add(b1, v1)
	f.Add(v1, rotateRight(v2))
	f.Add([]byte{'O', 3}, []byte{'Q', 3, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab, errAB := OreCompare(a, b)
		ba, errBA := OreCompare(b, a)
		if errAB == nil && errBA == nil && ab != -ba {
			t.Fatalf("not antisymmetric: %d and %d", ab, ba)
		}
		if errAB == nil {
			if _, _, err := oreParts(a); err != nil {
				t.Fatalf("compared a value of invalid form: %v", err)
			}
		}
		_, _ = OreIdentity(a)
		_, _ = c.Decrypt(sbK, []byte("r"), a)
		_, _ = c.DecryptOre(sbK, []byte("r"), a)
	})
}

func fuzzCipher(f *testing.F) *Cipher {
	dir := f.TempDir()
	p := Paths{MasterKey: dir + "/m.json", Keyset: dir + "/k.json"}
	if _, err := Init(p); err != nil {
		f.Fatal(err)
	}
	c, err := Open(p)
	if err != nil {
		f.Fatal(err)
	}
	return c
}
