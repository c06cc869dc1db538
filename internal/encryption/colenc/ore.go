package colenc

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"

	"github.com/encbench/encbench/internal/encryption/ore"
)

// An ore column value (format version 4) is [oreValueTag][version][key
// id, 4 bytes][ORE ciphertext: left part, synthetic nonce, right
// bits][MAC, 16 bytes], 430 bytes; a query bound is [oreTokenTag][version]
// [key id][left part]. The MAC is HMAC-SHA256 (truncated to 128 bits,
// RFC 2104 and NIST SP 800-107 section 5.3) under the column's own MAC
// key of everything before it and the row's key: a reader that checks it
// detects any change to any byte of the value, or a value moved to
// another row, before it decrypts (the synthetic nonce alone covers only
// the identity block). The server's comparison (tools/pg-ore) reads the
// same layout and ignores the MAC, which it cannot check.
const (
	oreValueTag  = 'O'
	oreTokenTag  = 'Q'
	oreVersion   = 4
	oreHeaderLen = 6
	oreMACLen    = 16
	// oreMACKeyLen is the HMAC key's length.
	oreMACKeyLen = 32
	// OreValueLen is a stored value's length.
	OreValueLen = oreHeaderLen + ore.CiphertextLen + oreMACLen
	oreTokenLen = oreHeaderLen + ore.LeftLen
	// OreIdentityFrom and OreIdentityLen locate, in a stored value (0-based),
	// the last block of the left part: unique per value, readable without
	// the key. sbtest binds its other columns to it when id is ore.
	OreIdentityFrom = oreHeaderLen + ore.TailFrom
	OreIdentityLen  = ore.IdentityLen
)

// oreKey is one column's ORE key, its MAC key and the id of the det key
// they came from.
type oreKey struct {
	key *ore.Key
	mac []byte
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
		seed := c.detSeal(i, make([]byte, 64), []byte("encbench-ore-key/v4\x00"+name))
		raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ore key v4", ore.KeyLen+4+oreMACKeyLen)
		if err != nil {
			return nil, err
		}
		k, err := ore.NewKey(raw[:ore.KeyLen])
		if err != nil {
			return nil, err
		}
		keys = append(keys, &oreKey{key: k, id: binary.BigEndian.Uint32(raw[ore.KeyLen:]), mac: raw[ore.KeyLen+4:]})
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

// appendOre appends v's stored value, bound to row, under the primary key.
func (f *Field) appendOre(dst, row []byte, v int64) ([]byte, error) {
	o := &f.ores[0]
	at := len(dst)
	dst, err := o.enc.Encrypt(oreHeader(dst, oreValueTag, o.id), v, row)
	if err != nil {
		return nil, err
	}
	return append(dst, o.tag(dst[at:], row)...), nil
}

// tag is the MAC of a value's bytes before the MAC and of the row key, in
// the worker's scratch space.
func (o *oreWorker) tag(value, row []byte) []byte {
	o.mac.Reset()
	o.mac.Write(value[:OreValueLen-oreMACLen])
	// The row's length, from the worker's scratch: a local array passed
	// to hash.Hash's Write would escape, an allocation per read.
	binary.BigEndian.PutUint64(o.rowLen[:], uint64(len(row)))
	o.mac.Write(o.rowLen[:])
	o.mac.Write(row)
	o.sum = o.mac.Sum(o.sum[:0])
	return o.sum[:oreMACLen]
}

// DecryptOre checks and decrypts a stored ore value read whole: its form,
// its MAC under the key its header names (every byte, and the row), then
// the synthetic nonce, which gives the value.
func (f *Field) DecryptOre(row, value []byte) (Value, error) {
	if len(f.ores) == 0 {
		return Value{}, fmt.Errorf("column %s.%s is not ore", f.col.Table, f.col.Name)
	}
	id, _, err := oreParts(value)
	if err != nil || len(value) != OreValueLen {
		return Value{}, notCiphertextOf(f.col)
	}
	for i := range f.ores {
		o := &f.ores[i]
		if o.id != id {
			continue
		}
		if !hmac.Equal(o.tag(value, row), value[OreValueLen-oreMACLen:]) {
			return Value{}, fmt.Errorf("decrypting %s.%s: the ore value was changed or moved since it was written (its MAC does not verify)", f.col.Table, f.col.Name)
		}
		tail := value[OreIdentityFrom : OreIdentityFrom+ore.TailLen]
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
// and its ORE ciphertext (a full one for a value, without its MAC; a left
// part for a bound).
func oreParts(b []byte) (id uint32, body []byte, err error) {
	bad := errors.New("not an encbench ore value or bound (format 4)")
	if len(b) < oreHeaderLen || b[1] != oreVersion {
		return 0, nil, bad
	}
	switch {
	case b[0] == oreValueTag && len(b) == OreValueLen:
		body = b[oreHeaderLen : OreValueLen-oreMACLen]
	case b[0] == oreTokenTag && len(b) == oreTokenLen:
		body = b[oreHeaderLen:]
	default:
		return 0, nil, bad
	}
	return binary.BigEndian.Uint32(b[2:6]), body, nil
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

// DecryptOre is Field.DecryptOre for a one-off call.
func (c *Cipher) DecryptOre(col Column, row, value []byte) (Value, error) {
	f, err := c.Field(col)
	if err != nil {
		return Value{}, err
	}
	return f.DecryptOre(row, value)
}

// newOreWorker is an ore key's per-worker state.
func newOreWorker(k *oreKey) oreWorker {
	return oreWorker{id: k.id, enc: k.key.NewEncrypter(), mac: hmac.New(sha256.New, k.mac), sum: make([]byte, 0, sha256.Size)}
}

// oreWorker is an ore key's id and this worker's scratch space for it.
type oreWorker struct {
	id     uint32
	enc    *ore.Encrypter
	mac    hash.Hash
	sum    []byte
	rowLen [8]byte
}
