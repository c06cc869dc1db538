package colenc

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Ashe is additive symmetric homomorphic encryption of integers (ASHE,
// Seabed, Papadimitriou et al., OSDI 2016, section 4.1):
// Enc(m, id) = m + F(id) - F(id-1) mod 2^64, F a PRF (here AES-256), id
// the ciphertext's identifier. As Seabed requires, every encryption gets a
// fresh identifier, stored beside the ciphertext and never reused under
// the same key: encrypting a second value under an identifier would give
// away the difference of the two values. The server adds ciphertexts; a
// sum decrypts with the identifiers of the summed values, two PRF calls
// per run of consecutive identifiers, since the masks telescope.
//
// encbench encrypts m * 2^16 rather than m: the low 16 bits of a correct
// decryption are zero, so a sum decrypted with the wrong identifier set or
// under another key fails (except with probability 2^-16) instead of
// returning a wrong number. Values and sums must stay within +-2^47.
// Adding a constant on the server adds it times 2^16 (AsheOne).
const Ashe Scheme = "ashe"

// AsheOne is what the server adds to a ciphertext to add 1 to its value.
const AsheOne = 1 << asheCheckBits

const asheCheckBits = 16

// AsheMax bounds the absolute value of a plaintext and of a sum.
const AsheMax = 1<<(63-asheCheckBits) - 1

// IDRange is a run of consecutive identifiers lo..hi.
type IDRange struct{ Lo, Hi uint64 }

// Runs compresses identifiers into runs of consecutive ones; ids must be
// distinct (each ciphertext has its own) and are sorted in place.
func Runs(ids []uint64) ([]IDRange, error) { return AppendRuns(nil, ids) }

// AppendRuns is Runs appending to out, for callers that reuse its space.
func AppendRuns(out []IDRange, ids []uint64) ([]IDRange, error) {
	slices.Sort(ids)
	first := len(out)
	for i, id := range ids {
		switch {
		case id == 0:
			return out[:first], errors.New("ashe identifier 0 is never assigned")
		case i > 0 && id == ids[i-1]:
			return out[:first], fmt.Errorf("ashe identifier %d appears twice", id)
		case len(out) > first && out[len(out)-1].Hi+1 == id:
			out[len(out)-1].Hi = id
		default:
			out = append(out, IDRange{id, id})
		}
	}
	return out, nil
}

type asheKey struct{ prf cipher.Block }

func (c *Cipher) asheKeyFor(col Column) (*asheKey, error) {
	if c.dataSet == nil {
		return nil, fmt.Errorf("column %s.%s is ashe, whose keys are bound to a data set: open the data set's nonce first (ForDataSet)", col.Table, col.Name)
	}
	name := "ashe\x00" + col.Table + "\x00" + col.Name
	if k, ok := c.derived.Load(name); ok {
		return k.(*asheKey), nil
	}
	// The data set's nonce is in the PRF's input: a fresh key per prepare.
	seed := c.detSeal(0, make([]byte, 32), []byte("encbench-ashe-key/v3\x00"+name+"\x00"+string(c.dataSet)))
	raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ashe key v3", 32)
	if err != nil {
		return nil, err
	}
	b, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	v, _ := c.derived.LoadOrStore(name, &asheKey{prf: b})
	return v.(*asheKey), nil
}

// f is the PRF: the first 8 bytes of AES(id), in the Field's scratch.
func (f *Field) f(id uint64) uint64 {
	in, out := &f.block[0], &f.block[1]
	*in = [16]byte{}
	binary.BigEndian.PutUint64(in[8:], id)
	f.ashe.prf.Encrypt(out[:], in[:])
	return binary.BigEndian.Uint64(out[:8])
}

func (f *Field) isAshe() error {
	if f.ashe == nil {
		return fmt.Errorf("column %s.%s is not ashe", f.col.Table, f.col.Name)
	}
	return nil
}

// AsheEncrypt encrypts m under identifier id, which must be fresh: never
// used before under this column's key (see the type's comment).
func (f *Field) AsheEncrypt(id uint64, m int64) (int64, error) {
	if err := f.isAshe(); err != nil {
		return 0, err
	}
	if id == 0 {
		return 0, errors.New("ashe identifiers start at 1")
	}
	if m > AsheMax || m < -AsheMax {
		return 0, fmt.Errorf("%s.%s: %d is beyond ashe's range of +-%d", f.col.Table, f.col.Name, m, int64(AsheMax))
	}
	return int64(uint64(m)<<asheCheckBits + f.f(id) - f.f(id-1)), nil
}

// AsheDecrypt decrypts one value with its identifier.
func (f *Field) AsheDecrypt(id uint64, v int64) (int64, error) {
	return f.asheOpen(uint64(v), IDRange{id, id})
}

// SumMod64 reads a server's exact integer SUM (decimal text, possibly
// beyond 64 bits) modulo 2^64, which is all ashe decryption needs: the
// digits are accumulated with uint64's wrap-around, a minus sign negates.
func SumMod64(text []byte) (uint64, bool) {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	if len(text) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// AsheDecryptSum decrypts the server's SUM (as text: exact, possibly
// beyond 64 bits) of the values whose identifiers are exactly ids.
func (f *Field) AsheDecryptSum(sum string, ids []IDRange) (int64, error) {
	v, ok := SumMod64([]byte(sum))
	if !ok {
		return 0, fmt.Errorf("sum of %s.%s: %q is not an integer", f.col.Table, f.col.Name, sum)
	}
	return f.asheOpen(v, ids...)
}

// AsheDecryptSum64 decrypts a sum already reduced modulo 2^64 (SumMod64,
// or several such added up).
func (f *Field) AsheDecryptSum64(sum uint64, ids []IDRange) (int64, error) {
	return f.asheOpen(sum, ids...)
}

func (f *Field) asheOpen(v uint64, ids ...IDRange) (int64, error) {
	if err := f.isAshe(); err != nil {
		return 0, err
	}
	for _, r := range ids {
		if r.Lo == 0 || r.Hi < r.Lo {
			return 0, fmt.Errorf("%s.%s: bad ashe identifier run %d..%d", f.col.Table, f.col.Name, r.Lo, r.Hi)
		}
		v -= f.f(r.Hi) - f.f(r.Lo-1)
	}
	if v&(AsheOne-1) != 0 {
		return 0, fmt.Errorf("decrypting %s.%s: the ashe check bits are not zero: the identifiers do not match the values summed, or the key changed (keys rotate) since they were written", f.col.Table, f.col.Name)
	}
	return int64(v) >> asheCheckBits, nil
}

// AsheEncrypt is Field.AsheEncrypt for a one-off call.
func (c *Cipher) AsheEncrypt(col Column, id uint64, m int64) (int64, error) {
	f, err := c.Field(col)
	if err != nil {
		return 0, err
	}
	return f.AsheEncrypt(id, m)
}

// AsheDecrypt is Field.AsheDecrypt for a one-off call.
func (c *Cipher) AsheDecrypt(col Column, id uint64, v int64) (int64, error) {
	f, err := c.Field(col)
	if err != nil {
		return 0, err
	}
	return f.AsheDecrypt(id, v)
}

// AsheDecryptSum is Field.AsheDecryptSum for a one-off call.
func (c *Cipher) AsheDecryptSum(col Column, sum string, ids []IDRange) (int64, error) {
	f, err := c.Field(col)
	if err != nil {
		return 0, err
	}
	return f.AsheDecryptSum(sum, ids)
}
