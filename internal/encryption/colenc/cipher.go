// Package colenc is client-side column encryption with Tink keysets:
// randomized AEAD (AES-256-GCM) and deterministic AEAD (AES-SIV) per
// column, order-revealing (ore) and additive (ashe) integers, typed
// plaintexts, and associated data that binds each ciphertext to its table
// and column (and, for randomized columns, its row).
//
// Tink is the key manager and the keyset format; the ciphertexts are
// Tink's, byte for byte (prefix || nonce || ciphertext || tag for AEAD,
// prefix || V || C for AES-SIV), but made with Go's crypto/cipher and the
// key material read from the keyset once, in per-worker Fields, because
// Tink's per-call indirection and allocations cost several times the
// cipher itself.
package colenc

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tink-crypto/tink-go/v2/aead/aesgcm"
	"github.com/tink-crypto/tink-go/v2/daead/aessiv"
	"github.com/tink-crypto/tink-go/v2/insecuresecretdataaccess"
	"github.com/tink-crypto/tink-go/v2/keyset"
)

// Column names an encrypted column and its scheme.
type Column struct {
	Table  string
	Name   string
	Scheme Scheme
}

// Cipher holds a keyset's keys. Safe for concurrent use; the work is done
// by Fields, one per column and worker.
type Cipher struct {
	rnd []gcmKey // primary first
	det []sivEntry
	// derived caches each ore and ashe column's derived key.
	derived sync.Map
	// dataSet binds ashe keys to one prepared data set (ForDataSet).
	dataSet []byte
	// rndSealed counts the primary rnd key's nonces drawn since the last
	// RecordRndUses (shared by the ForDataSet copies of one keyset).
	rndSealed *atomic.Uint64
}

type gcmKey struct {
	prefix []byte
	aead   cipher.AEAD
}

type sivEntry struct {
	prefix []byte
	siv    *sivKey
}

// Open loads the keyset with the master key.
func Open(p Paths) (*Cipher, error) {
	ha, hd, _, err := load(p)
	if err != nil {
		return nil, err
	}
	return fromHandles(ha, hd)
}

// fromHandles reads the enabled keys of both keysets, primary first.
func fromHandles(ha, hd *keyset.Handle) (*Cipher, error) {
	c := &Cipher{rndSealed: new(atomic.Uint64)}
	err := eachEnabled(ha, func(k any, primary bool) error {
		gk, ok := k.(*aesgcm.Key)
		if !ok {
			return fmt.Errorf("the rnd keyset holds a %T key: encbench reads AES-GCM keys only", k)
		}
		p := gk.Parameters().(*aesgcm.Parameters)
		if p.IVSizeInBytes() != 12 || p.TagSizeInBytes() != 16 {
			return fmt.Errorf("rnd key with a %d-byte IV and %d-byte tag: encbench reads 12 and 16", p.IVSizeInBytes(), p.TagSizeInBytes())
		}
		b, err := aes.NewCipher(gk.KeyBytes().Data(insecuresecretdataaccess.Token{}))
		if err != nil {
			return err
		}
		g, err := cipher.NewGCM(b)
		if err != nil {
			return err
		}
		c.rnd = insertKey(c.rnd, gcmKey{gk.OutputPrefix(), g}, primary)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rnd keyset: %w", err)
	}
	err = eachEnabled(hd, func(k any, primary bool) error {
		sk, ok := k.(*aessiv.Key)
		if !ok {
			return fmt.Errorf("the det keyset holds a %T key: encbench reads AES-SIV keys only", k)
		}
		s, err := newSIVKey(sk.KeyBytes().Data(insecuresecretdataaccess.Token{}))
		if err != nil {
			return err
		}
		c.det = insertKey(c.det, sivEntry{sk.OutputPrefix(), s}, primary)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("det keyset: %w", err)
	}
	if len(c.rnd) == 0 || len(c.det) == 0 {
		return nil, fmt.Errorf("the keyset has no enabled key")
	}
	return c, nil
}

func eachEnabled(h *keyset.Handle, f func(k any, primary bool) error) error {
	for i := range h.Len() {
		e, err := h.Entry(i)
		if err != nil {
			return err
		}
		if e.KeyStatus() != keyset.Enabled {
			continue
		}
		if err := f(e.Key(), e.IsPrimary()); err != nil {
			return err
		}
	}
	return nil
}

func insertKey[T any](keys []T, k T, primary bool) []T {
	if primary {
		return append([]T{k}, keys...)
	}
	return append(keys, k)
}

// ad is the associated data: format tag, table, column and, for rnd, the
// row's key (det values are not bound to a row; ore values are, through
// their synthetic nonce). A ciphertext copied to another column (or, for
// rnd and ore, another row) no longer decrypts.
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
// for det columns, whose equal values must stay equal across rows). Each
// call resolves the column's keys: a worker keeps a Field instead.
func (c *Cipher) Encrypt(col Column, row []byte, v Value) ([]byte, error) {
	f, err := c.Field(col)
	if err != nil {
		return nil, err
	}
	return f.Append(nil, row, v)
}

// Decrypt checks and decrypts a ciphertext of col.
func (c *Cipher) Decrypt(col Column, row, ct []byte) (Value, error) {
	f, err := c.Field(col)
	if err != nil {
		return Value{}, err
	}
	return f.Decrypt(row, ct)
}

func notCiphertextOf(col Column) error {
	return fmt.Errorf("decrypting %s.%s: not a ciphertext of this column and row under this keyset", col.Table, col.Name)
}
