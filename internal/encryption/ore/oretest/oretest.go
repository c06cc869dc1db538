// Package oretest builds, for tests, the ORE forgery a writer to a column
// can make from public data alone: what no server-side check can refuse.
package oretest

import (
	"bytes"
	"crypto/aes"

	"github.com/encbench/encbench/internal/encryption/ore"
)

const leftBlock = ore.IdentityLen

// LeftBlock is block i of a ciphertext's left part.
func LeftBlock(c []byte, i int) []byte { return c[i*leftBlock : (i+1)*leftBlock] }

// Agree sets the right bits of forged (a full ORE ciphertext whose left
// part may mix other values' blocks) so that, against each of stored (full
// ciphertexts), the direction the forgery controls (stored's left part
// against forged's right part) agrees with the one it does not: both read
// public data only (left blocks, nonces, right bits), with H computed
// under forged's own nonce. Stored values that share forged's last block
// are skipped (the last-block check refuses those pairs anyway).
func Agree(forged []byte, stored [][]byte) error {
	nonce := forged[ore.LeftLen : ore.LeftLen+ore.NonceLen]
	h, err := aes.NewCipher(nonce)
	if err != nil {
		return err
	}
	bits := forged[ore.LeftLen+ore.NonceLen:]
	for _, g := range stored {
		if bytes.Equal(LeftBlock(g, 7), LeftBlock(forged, 7)) {
			continue
		}
		r, err := ore.Compare(forged[:ore.LeftLen], g)
		if err != nil {
			return err
		}
		i := 0
		for i < 8 && bytes.Equal(LeftBlock(g, i), LeftBlock(forged, i)) {
			i++
		}
		blk := LeftBlock(g, i)
		var out [16]byte
		h.Encrypt(out[:], blk[:16])
		want := out[15] & 1
		if r < 0 { // g is greater: the back direction must say so
			want ^= 1
		}
		slot := int(blk[16])
		at := i*32 + slot/8
		bits[at] = bits[at]&^(1<<(slot%8)) | want<<(slot%8)
	}
	return nil
}
