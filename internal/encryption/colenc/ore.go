package colenc

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/encbench/encbench/internal/encryption/ore"
)

// An ore column value (format version 3) is [oreValueTag][version][key
// id, 4 bytes][ORE ciphertext: left part, synthetic nonce, right bits],
// 414 bytes; a query bound is [oreTokenTag][version][key id][left part].
// The left part ends with its identity block (a deterministic function of
// the whole plaintext) and the nonce follows it, so a reader that needs
// only the value selects those 33 bytes (OreTailFrom, OreTailLen): the
// nonce is the value enciphered with a check of its row and identity
// block (see package ore). The server's comparison (tools/pg-ore) reads
// the same layout.
const (
	oreValueTag  = 'O'
	oreTokenTag  = 'Q'
	oreVersion   = 3
	oreHeaderLen = 6
	// OreValueLen is a stored value's length.
	OreValueLen = oreHeaderLen + ore.CiphertextLen
	oreTokenLen = oreHeaderLen + ore.LeftLen
	// OreTailFrom is the 0-based offset from which a stored value's
	// identity block and nonce run (OreTailLen bytes): all a reader needs.
	OreTailFrom = oreHeaderLen + ore.TailFrom
	// OreTailLen is that run's length.
	OreTailLen = ore.TailLen
	// OreIdentityFrom and OreIdentityLen locate, in a stored value, the
	// last block of the left part: unique per value, readable without the
	// key. sbtest binds its other columns to it when id is ore.
	OreIdentityFrom = OreTailFrom
	OreIdentityLen  = ore.IdentityLen
)

// oreKey is one column's ORE key and the id of the det key it came from.
type oreKey struct {
	key *ore.Key
	id  uint32
}

// detSeal is det key i's ciphertext of pt under associated data a, as
// Tink's deterministic AEAD writes it (prefix || V || C); for key
// derivation, off the hot path.
func (c *Cipher) detSeal(i int, pt, a []byte) []byte {
	k := c.det[i]
	var s sivScratch
	out := append(append(append([]byte{}, k.prefix...), make([]byte, 16)...), pt...)
	k.siv.seal(out, len(k.prefix), k.siv.adState(a, &s), &s)
	return out
}

// oreKeysFor derives col's ORE key and key id from each det key, the
// primary's first: the deterministic encryption of a fixed block under a
// per-column label is a PRF of the label, stretched with HKDF. Each
// column's key id is its own (values of two columns do not compare: the
// server refuses). New values and bounds use the primary det key's, so
// after a rotation values written before it no longer compare with new
// bounds until the column is re-encrypted (prepare again); they still
// decrypt, with the key their header names.
func (c *Cipher) oreKeysFor(col Column) ([]*oreKey, error) {
	name := col.Table + "\x00" + col.Name
	if k, ok := c.derived.Load(name); ok {
		return k.([]*oreKey), nil
	}
	var keys []*oreKey
	for i := range c.det {
		seed := c.detSeal(i, make([]byte, 64), []byte("encbench-ore-key/v3\x00"+name))
		raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ore key v3", ore.KeyLen+4)
		if err != nil {
			return nil, err
		}
		k, err := ore.NewKey(raw[:ore.KeyLen])
		if err != nil {
			return nil, err
		}
		keys = append(keys, &oreKey{key: k, id: binary.BigEndian.Uint32(raw[ore.KeyLen:])})
	}
	v, _ := c.derived.LoadOrStore(name, keys)
	return v.([]*oreKey), nil
}

func oreHeader(buf []byte, tag byte, id uint32) []byte {
	buf = append(buf, tag, oreVersion)
	return binary.BigEndian.AppendUint32(buf, id)
}

// Token is the query bound for v: it compares (on the server or with
// OreCompare) against the column's stored values, not against another
// bound, and cannot be decrypted.
func (f *Field) Token(v int64) ([]byte, error) {
	if len(f.ores) == 0 {
		return nil, fmt.Errorf("column %s.%s is not ore", f.col.Table, f.col.Name)
	}
	o := f.ores[0]
	return o.enc.Left(oreHeader(make([]byte, 0, oreTokenLen), oreTokenTag, o.id), v), nil
}

// DecryptOreTail decrypts an ore value read from OreTailFrom on (identity
// block and nonce). It checks that they were written for this column and
// row and beside that identity block; whether the rest of the ORE part
// orders the same plaintext is Check's question. A tail does not say
// which key made it: after a rotation every key is tried, newest first.
func (f *Field) DecryptOreTail(row, tail []byte) (Value, error) {
	if len(f.ores) == 0 {
		return Value{}, fmt.Errorf("column %s.%s is not ore", f.col.Table, f.col.Name)
	}
	for _, o := range f.ores {
		if x, err := o.enc.Open(tail, row); err == nil {
			return Int(x), nil
		}
	}
	return Value{}, notCiphertextOf(f.col)
}

// Check says whether a stored ore value's left part is v's under the
// column's key (the proof that the server orders the value the client
// stored).
func (f *Field) Check(v int64, stored []byte) error {
	tok, err := f.Token(v)
	if err != nil {
		return err
	}
	id, body, err := oreParts(stored)
	if err != nil {
		return err
	}
	if id != f.ores[0].id || string(body[:ore.LeftLen]) != string(tok[oreHeaderLen:]) {
		return fmt.Errorf("the ore part of %s.%s does not encrypt %d under this keyset", f.col.Table, f.col.Name, v)
	}
	return nil
}

// oreParts checks a stored value or bound's form and returns its key id
// and its ORE ciphertext (a full one for a value, a left part for a bound).
func oreParts(b []byte) (id uint32, body []byte, err error) {
	bad := errors.New("not an encbench ore value or bound (format 3)")
	if len(b) < oreHeaderLen || b[1] != oreVersion {
		return 0, nil, bad
	}
	switch {
	case b[0] == oreValueTag && len(b) == OreValueLen, b[0] == oreTokenTag && len(b) == oreTokenLen:
	default:
		return 0, nil, bad
	}
	return binary.BigEndian.Uint32(b[2:6]), b[oreHeaderLen:], nil
}

// OreCompare orders two stored values, or a stored value and a bound, as
// the server's operator class does; it needs no key. The client-side
// filter (servers without the extension) uses it.
func OreCompare(a, b []byte) (int, error) {
	ida, x, err := oreParts(a)
	if err != nil {
		return 0, err
	}
	idb, y, err := oreParts(b)
	if err != nil {
		return 0, err
	}
	if ida != idb {
		return 0, fmt.Errorf("ore values under different keys (%d, %d): another column's, or prepared before a keyset rotation", ida, idb)
	}
	return ore.Compare(x, y)
}

// OreIdentity returns the identity block of a stored ore value or bound.
func OreIdentity(b []byte) ([]byte, error) {
	switch {
	case len(b) == OreValueLen && b[0] == oreValueTag:
		return b[OreIdentityFrom : OreIdentityFrom+OreIdentityLen], nil
	case len(b) == oreTokenLen && b[0] == oreTokenTag:
		return b[oreTokenLen-OreIdentityLen:], nil
	}
	return nil, errors.New("not an ore value or bound")
}

// OreToken is Field.Token for a one-off call.
func (c *Cipher) OreToken(col Column, v int64) ([]byte, error) {
	f, err := c.Field(col)
	if err != nil {
		return nil, err
	}
	return f.Token(v)
}

// DecryptOreTail is Field.DecryptOreTail for a one-off call.
func (c *Cipher) DecryptOreTail(col Column, row, tail []byte) (Value, error) {
	f, err := c.Field(col)
	if err != nil {
		return Value{}, err
	}
	return f.DecryptOreTail(row, tail)
}
