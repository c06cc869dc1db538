// Package colenc is client-side column encryption on Tink: randomized AEAD
// (AES-256-GCM) and deterministic AEAD (AES-SIV) per column, typed
// plaintexts, and associated data that binds each ciphertext to its table
// and column (and, for randomized columns, its row).
package colenc

import (
	"fmt"
	"sync"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/daead"
	"github.com/tink-crypto/tink-go/v2/tink"
)

// Column names an encrypted column and its scheme.
type Column struct {
	Table  string
	Name   string
	Scheme Scheme
}

// Cipher encrypts and decrypts column values. Safe for concurrent use (the
// Tink primitives are); workers still keep their own scratch buffers.
type Cipher struct {
	rnd tink.AEAD
	det tink.DeterministicAEAD
	// ores caches each ore column's derived key (read on every encryption).
	ores sync.Map
}

// Open loads the keyset with the master key.
func Open(p Paths) (*Cipher, error) {
	ha, hd, _, err := load(p)
	if err != nil {
		return nil, err
	}
	a, err := aead.New(ha)
	if err != nil {
		return nil, fmt.Errorf("rnd keyset: %w", err)
	}
	d, err := daead.New(hd)
	if err != nil {
		return nil, fmt.Errorf("det keyset: %w", err)
	}
	return &Cipher{rnd: a, det: d}, nil
}

// ad is the associated data: format tag, table, column and, for rnd, the
// row's key (det values are not bound to a row; ore copies are, see
// oreAD). A ciphertext copied to another column (or, for rnd and ore,
// another row) no longer decrypts.
func ad(buf []byte, col Column, row []byte) []byte {
	buf = append(buf[:0], "encbench-colenc/v1\x00"...)
	buf = append(buf, col.Table...)
	buf = append(buf, 0)
	buf = append(buf, col.Name...)
	buf = append(buf, 0, byte(len(col.Scheme)))
	buf = append(buf, col.Scheme...)
	if col.Scheme == Rnd {
		buf = append(buf, 0)
		buf = append(buf, row...)
	}
	return buf
}

// Encrypt returns v's ciphertext for col; row is the row's key (ignored
// for det columns, whose equal values must stay equal across rows).
func (c *Cipher) Encrypt(col Column, row []byte, v Value) ([]byte, error) {
	pt, err := v.encode(nil)
	if err != nil {
		return nil, fmt.Errorf("encrypting %s.%s: %w", col.Table, col.Name, err)
	}
	a := ad(nil, col, row)
	switch col.Scheme {
	case Rnd:
		return c.rnd.Encrypt(pt, a)
	case Det:
		return c.det.EncryptDeterministically(pt, a)
	case Ore:
		return c.encryptOre(col, v, pt, row)
	case Ashe:
		return nil, fmt.Errorf("column %s.%s is ashe: use AsheEncrypt with the row id", col.Table, col.Name)
	}
	return nil, fmt.Errorf("column %s.%s has no scheme", col.Table, col.Name)
}

// Decrypt checks and decrypts a ciphertext of col.
func (c *Cipher) Decrypt(col Column, row, ct []byte) (Value, error) {
	if col.Scheme == Ore {
		if _, _, tail, err := oreParts(ct); err != nil || tail == nil {
			return Value{}, notCiphertextOf(col)
		}
		return c.openOre(col, row, ct[OreIdentityFrom:oreTailAt], ct[oreTailAt:])
	}
	return c.open(col, row, ct)
}

// open checks and decrypts an AEAD ciphertext of col (for ore, the AEAD
// copy stored after the ORE part).
func (c *Cipher) open(col Column, row, ct []byte) (Value, error) {
	a := ad(nil, col, row)
	var pt []byte
	var err error
	switch col.Scheme {
	case Rnd:
		pt, err = c.rnd.Decrypt(ct, a)
	case Det:
		pt, err = c.det.DecryptDeterministically(ct, a)
	default:
		return Value{}, fmt.Errorf("column %s.%s has no scheme", col.Table, col.Name)
	}
	if err != nil {
		return Value{}, notCiphertextOf(col)
	}
	return decode(pt)
}

func notCiphertextOf(col Column) error {
	return fmt.Errorf("decrypting %s.%s: not a ciphertext of this column and row under this keyset", col.Table, col.Name)
}
