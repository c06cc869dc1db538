package colenc

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
)

// Ashe is additive symmetric homomorphic encryption of integers (ASHE, from
// Seabed, Papadimitriou et al., OSDI 2016): Enc(m, id) = m + F(id) - F(id-1)
// mod 2^64 with F a PRF (AES-256). The server adds ciphertexts; a sum over
// the contiguous ids lo..hi decrypts with two PRF calls, since the masks
// telescope to F(hi) - F(lo-1). Adding a plaintext constant on the server
// (k = k + 1) adds it to the plaintext.
const Ashe Scheme = "ashe"

type asheKey struct{ prf cipher.Block }

func (c *Cipher) asheKeyFor(col Column) (*asheKey, error) {
	name := "ashe\x00" + col.Table + "\x00" + col.Name
	if k, ok := c.ores.Load(name); ok {
		return k.(*asheKey), nil
	}
	seed, err := c.det.EncryptDeterministically(make([]byte, 32), []byte("encbench-ashe-key/v1\x00"+name))
	if err != nil {
		return nil, fmt.Errorf("deriving the ashe key of %s.%s: %w", col.Table, col.Name, err)
	}
	raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ashe key v1", 32)
	if err != nil {
		return nil, err
	}
	b, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	v, _ := c.ores.LoadOrStore(name, &asheKey{prf: b})
	return v.(*asheKey), nil
}

// f is the PRF: the first 8 bytes of AES(id).
func (k *asheKey) f(id int64) uint64 {
	var in, out [16]byte
	binary.BigEndian.PutUint64(in[8:], uint64(id))
	k.prf.Encrypt(out[:], in[:])
	return binary.BigEndian.Uint64(out[:8])
}

// AsheEncrypt encrypts m for the row whose integer key is id.
func (c *Cipher) AsheEncrypt(col Column, id, m int64) (int64, error) {
	k, err := c.asheKeyFor(col)
	if err != nil {
		return 0, err
	}
	return int64(uint64(m) + k.f(id) - k.f(id-1)), nil
}

// AsheDecrypt decrypts one value of the row id.
func (c *Cipher) AsheDecrypt(col Column, id, v int64) (int64, error) {
	k, err := c.asheKeyFor(col)
	if err != nil {
		return 0, err
	}
	return int64(uint64(v) - k.f(id) + k.f(id-1)), nil
}

// two64 is 2^64, for reducing a server's exact sum.
var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// AsheDecryptSum decrypts the server's SUM (as text: exact, possibly
// beyond 64 bits) of the values of every id in lo..hi.
func (c *Cipher) AsheDecryptSum(col Column, sum string, lo, hi int64) (int64, error) {
	k, err := c.asheKeyFor(col)
	if err != nil {
		return 0, err
	}
	s, ok := new(big.Int).SetString(sum, 10)
	if !ok {
		return 0, fmt.Errorf("sum of %s.%s: %q is not an integer", col.Table, col.Name, sum)
	}
	u := s.Mod(s, two64).Uint64()
	return int64(u - k.f(hi) + k.f(lo-1)), nil
}
