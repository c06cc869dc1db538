package colenc

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/encbench/encbench/internal/encryption/ore"
)

// An ore column value is [oreValueTag][version][key id, 4 bytes][ORE
// ciphertext][AES-GCM ciphertext of the value]; a query bound is
// [oreTokenTag][version][key id][ORE left part]. The server's comparison
// (tools/pg-ore) reads the same layout.
const (
	oreValueTag   = 'O'
	oreTokenTag   = 'Q'
	oreVersion    = 1
	oreHeaderLen  = 6
	oreTokenLen   = oreHeaderLen + ore.LeftLen
	oreMinValueLn = oreHeaderLen + ore.CiphertextLen
)

// OreTokenLen is the length of a query bound (OreToken's output).
const OreTokenLen = oreTokenLen

// oreKey is one column's ORE key and the id of the det key it came from.
type oreKey struct {
	key *ore.Key
	id  uint32
}

// oreKeyFor derives col's ORE key from the primary det key: the
// deterministic encryption of a fixed block under a per-column label is a
// PRF of the label, stretched with HKDF. Rotating the det keyset therefore
// changes the ORE key; values under the old key no longer compare with new
// bounds (the server refuses such a comparison) until the column is
// re-encrypted (prepare again).
func (c *Cipher) oreKeyFor(col Column) (*oreKey, error) {
	name := col.Table + "\x00" + col.Name
	if k, ok := c.ores.Load(name); ok {
		return k.(*oreKey), nil
	}
	seed, err := c.det.EncryptDeterministically(make([]byte, 64), []byte("encbench-ore-key/v1\x00"+name))
	if err != nil {
		return nil, fmt.Errorf("deriving the ore key of %s.%s: %w", col.Table, col.Name, err)
	}
	if len(seed) < 5 {
		return nil, errors.New("deriving the ore key: short det output")
	}
	raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ore key v1", 64)
	if err != nil {
		return nil, err
	}
	k, err := ore.NewKey(raw)
	if err != nil {
		return nil, err
	}
	// Tink's output prefix is 0x01 and the key id.
	ok := &oreKey{key: k, id: binary.BigEndian.Uint32(seed[1:5])}
	v, _ := c.ores.LoadOrStore(name, ok)
	return v.(*oreKey), nil
}

func oreHeader(buf []byte, tag byte, id uint32) []byte {
	buf = append(buf, tag, oreVersion)
	return binary.BigEndian.AppendUint32(buf, id)
}

func (c *Cipher) encryptOre(col Column, v Value, pt, ad []byte) ([]byte, error) {
	if v.Kind != KindInt {
		return nil, fmt.Errorf("encrypting %s.%s: the ore scheme takes integers only", col.Table, col.Name)
	}
	k, err := c.oreKeyFor(col)
	if err != nil {
		return nil, err
	}
	body, err := k.key.Encrypt(v.I)
	if err != nil {
		return nil, err
	}
	tail, err := c.rnd.Encrypt(pt, ad)
	if err != nil {
		return nil, err
	}
	out := oreHeader(make([]byte, 0, oreMinValueLn+len(tail)), oreValueTag, k.id)
	out = append(out, body...)
	return append(out, tail...), nil
}

// OreToken is the query bound for v in col: it compares (on the server or
// with OreCompare) against the column's stored values, not against another
// bound, and cannot be decrypted.
func (c *Cipher) OreToken(col Column, v int64) ([]byte, error) {
	k, err := c.oreKeyFor(col)
	if err != nil {
		return nil, err
	}
	left, err := k.key.Left(v)
	if err != nil {
		return nil, err
	}
	return append(oreHeader(make([]byte, 0, oreTokenLen), oreTokenTag, k.id), left...), nil
}

// oreTail returns the AEAD part of a stored ore value.
func oreTail(ct []byte) ([]byte, error) {
	if len(ct) <= oreMinValueLn || ct[0] != oreValueTag || ct[1] != oreVersion {
		return nil, errors.New("not an ore value")
	}
	return ct[oreMinValueLn:], nil
}

// OreTailFrom is the 0-based offset of a stored ore value's AEAD copy. A
// reader that needs only the plaintext selects the value from there and
// leaves the ORE part (about 700 bytes) on the server.
const OreTailFrom = oreMinValueLn

// DecryptOreTail decrypts the AEAD copy of an ore value of col read from
// OreTailFrom on. The copy is bound to the column (not the row, like the
// whole value); whether the ORE part beside it orders the same plaintext
// is OreCheck's question, not this one's.
func (c *Cipher) DecryptOreTail(col Column, row, tail []byte) (Value, error) {
	if col.Scheme != Ore {
		return Value{}, fmt.Errorf("column %s.%s is not ore", col.Table, col.Name)
	}
	return c.open(col, row, tail)
}

// oreBody checks the header and returns the key id and the ORE part.
func oreBody(b []byte) (uint32, []byte, error) {
	if len(b) < oreHeaderLen || b[1] != oreVersion {
		return 0, nil, errors.New("not an ore value or bound")
	}
	id := binary.BigEndian.Uint32(b[2:6])
	switch {
	case b[0] == oreValueTag && len(b) > oreMinValueLn:
		return id, b[oreHeaderLen:oreMinValueLn], nil
	case b[0] == oreTokenTag && len(b) == oreTokenLen:
		return id, b[oreHeaderLen:], nil
	}
	return 0, nil, errors.New("not an ore value or bound")
}

// OreCompare orders two stored values, or a stored value and a bound, as
// the server's operator class does; it needs no key. The client-side
// filter (servers without the extension) uses it.
func OreCompare(a, b []byte) (int, error) {
	ida, x, err := oreBody(a)
	if err != nil {
		return 0, err
	}
	idb, y, err := oreBody(b)
	if err != nil {
		return 0, err
	}
	if ida != idb {
		return 0, fmt.Errorf("ore values under different keys (%d, %d): prepare again after rotating the keyset", ida, idb)
	}
	return ore.Compare(x, y)
}

// oreIdentityFrom, oreIdentityLen locate the last block of an ore value's
// (or bound's) left part: a deterministic function of the whole plaintext,
// unique per value, that a client can read without decrypting. sbtest binds
// its rnd columns to it when id is ore.
const (
	OreIdentityFrom = oreHeaderLen + ore.LeftLen - 17
	OreIdentityLen  = 17
)

// OreIdentity returns that block of a stored ore value or bound.
func OreIdentity(b []byte) ([]byte, error) {
	if len(b) < OreIdentityFrom+OreIdentityLen {
		return nil, errors.New("not an ore value or bound")
	}
	return b[OreIdentityFrom : OreIdentityFrom+OreIdentityLen], nil
}

// OreCheck says whether a stored ore value's left part is v's under col's
// key (the proof that the server orders the value the client stored).
func (c *Cipher) OreCheck(col Column, v int64, stored []byte) error {
	tok, err := c.OreToken(col, v)
	if err != nil {
		return err
	}
	id, body, err := oreBody(stored)
	if err != nil {
		return err
	}
	if id != binary.BigEndian.Uint32(tok[2:6]) || string(body[:ore.LeftLen]) != string(tok[oreHeaderLen:]) {
		return fmt.Errorf("the ore part of %s.%s does not encrypt %d under this keyset", col.Table, col.Name, v)
	}
	return nil
}
