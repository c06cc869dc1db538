package colenc

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"slices"
)

// Field is one column's encryption for one worker: the column's keys
// resolved, the fixed part of its associated data built, and the scratch
// space the primitives write to, so encrypting and decrypting allocate
// nothing but their results. Not safe for concurrent use: a worker keeps
// one per column, as it keeps its prepared statements.
type Field struct {
	c     *Cipher
	col   Column
	ad    []byte // the associated data; rnd appends the row after fixed
	fixed int
	detD  [][16]byte // det: S2V's state after ad, per key
	s     sivScratch
	pt    []byte
	ores  []oreWorker // one per det key, the primary's first
	ashe  *asheKey
	block [2][16]byte // ashe's AES input and output
	// nonces holds random bytes from the system's CSPRNG, drawn 64 nonces
	// at a time: one getrandom call per nonce cost a sixth of a field.
	nonces [64 * 12]byte
	used   int
}

// nonce returns 12 fresh random bytes (a GCM nonce, as Tink draws it).
func (f *Field) nonce() []byte {
	if f.used == 0 || f.used == len(f.nonces) {
		rand.Read(f.nonces[:]) // never fails (crypto/rand, Go 1.24+)
		f.used = 0
		// Counted as drawn, 64 at a time: at most 63 too many per Field.
		f.c.rndSealed.Add(uint64(len(f.nonces) / 12))
	}
	f.used += 12
	return f.nonces[f.used-12 : f.used]
}

// Field resolves col's keys for one worker.
func (c *Cipher) Field(col Column) (*Field, error) {
	f := &Field{c: c, col: col}
	f.ad = ad(nil, col, nil)
	f.fixed = len(f.ad)
	var err error
	switch col.Scheme {
	case Rnd, RndColumn:
	case Det:
		for _, k := range c.det {
			f.detD = append(f.detD, k.siv.adState(f.ad, &f.s))
		}
	case Ore:
		var keys []*oreKey
		if keys, err = c.oreKeysFor(col); err == nil {
			for _, k := range keys {
				f.ores = append(f.ores, newOreWorker(k))
			}
		}
	case Ashe:
		f.ashe, err = c.asheKeyFor(col)
	default:
		err = fmt.Errorf("column %s.%s has no scheme", col.Table, col.Name)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (f *Field) rowAD(row []byte) []byte {
	if f.col.Scheme == RndColumn {
		return f.ad[:f.fixed] // bound to no row, whatever the caller has
	}
	f.ad = append(f.ad[:f.fixed], row...)
	return f.ad
}

// Encrypt returns v's ciphertext; row is the row's key (ignored for det
// columns, whose equal values must stay equal across rows).
func (f *Field) Encrypt(row []byte, v Value) ([]byte, error) { return f.Append(nil, row, v) }

// Append appends v's ciphertext to dst.
func (f *Field) Append(dst, row []byte, v Value) ([]byte, error) {
	n, err := v.encodedLen()
	if err != nil {
		return nil, fmt.Errorf("encrypting %s.%s: %w", f.col.Table, f.col.Name, err)
	}
	switch f.col.Scheme {
	case Rnd, RndColumn:
		k := f.c.rnd[0]
		dst = slices.Grow(dst, len(k.prefix)+12+n+16)
		dst = append(dst, k.prefix...)
		nonceAt := len(dst)
		dst = append(dst, f.nonce()...)
		ptAt := len(dst)
		dst = v.appendEncoded(dst)
		return k.aead.Seal(dst[:ptAt], dst[nonceAt:ptAt], dst[ptAt:], f.rowAD(row)), nil
	case Det:
		k := f.c.det[0]
		dst = slices.Grow(dst, len(k.prefix)+16+n)
		dst = append(dst, k.prefix...)
		vAt := len(dst)
		dst = v.appendEncoded(dst[:vAt+16])
		k.siv.seal(dst, vAt, f.detD[0], &f.s)
		return dst, nil
	case Ore:
		if v.Kind != KindInt {
			return nil, fmt.Errorf("encrypting %s.%s: the ore scheme takes integers only", f.col.Table, f.col.Name)
		}
		return f.appendOre(slices.Grow(dst, OreValueLen), row, v.I)
	case Ashe:
		return nil, fmt.Errorf("column %s.%s is ashe: use AsheEncrypt with the row id", f.col.Table, f.col.Name)
	}
	return nil, fmt.Errorf("column %s.%s has no scheme", f.col.Table, f.col.Name)
}

// Decrypt checks and decrypts a ciphertext of the column for row.
func (f *Field) Decrypt(row, ct []byte) (Value, error) {
	if f.col.Scheme == Ore {
		return f.DecryptOre(row, ct)
	}
	pt, err := f.open(row, ct)
	if err != nil {
		return Value{}, err
	}
	return f.decoded(pt)
}

// Open checks a rnd or det ciphertext of the column for row and returns
// its value's kind and encoded payload (big-endian integer, or the text's
// bytes) in the Field's scratch space, valid until the Field's next call:
// a reader that only checks a value, or copies it where it wants it,
// allocates nothing.
func (f *Field) Open(row, ct []byte) (Kind, []byte, error) {
	pt, err := f.open(row, ct)
	if err != nil {
		return 0, nil, err
	}
	return Kind(pt[0]), pt[1:], nil
}

// open authenticates and decrypts into f.pt under whichever of the
// column's keys the ciphertext's prefix names; the plaintext is at least
// its kind byte.
func (f *Field) open(row, ct []byte) ([]byte, error) {
	switch f.col.Scheme {
	case Rnd, RndColumn:
		a := f.rowAD(row)
		for _, k := range f.c.rnd {
			body, ok := bytes.CutPrefix(ct, k.prefix)
			if !ok || len(body) < 12+16 {
				continue
			}
			if pt, err := k.aead.Open(f.pt[:0], body[:12], body[12:], a); err == nil && len(pt) > 0 {
				f.pt = pt
				return pt, nil
			}
		}
	case Det:
		for i, k := range f.c.det {
			body, ok := bytes.CutPrefix(ct, k.prefix)
			if !ok {
				continue
			}
			if pt, ok := k.siv.open(f.pt, body, f.detD[i], &f.s); ok && len(pt) > 0 {
				f.pt = pt
				return pt, nil
			}
		}
	case Ore:
		return nil, fmt.Errorf("column %s.%s is ore: use DecryptOre", f.col.Table, f.col.Name)
	}
	return nil, notCiphertextOf(f.col)
}

func (f *Field) decoded(pt []byte) (Value, error) {
	v, err := decode(pt)
	if err != nil {
		return Value{}, fmt.Errorf("decrypting %s.%s: %w", f.col.Table, f.col.Name, err)
	}
	return v, nil
}
