package colenc

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/encbench/encbench/internal/encryption/ore"
)

// An ore column value (format version 2) is [oreValueTag][version][key
// id, 4 bytes][ORE right part][ORE left part][AES-GCM ciphertext of the
// value]; a query bound is [oreTokenTag][version][key id][ORE left part].
// The left part ends with its identity block (a deterministic function of
// the whole plaintext), so a reader that needs only the value selects
// identity and AEAD copy together from OreTailFrom on. The server's
// comparison (tools/pg-ore) reads the same layout.
const (
	oreValueTag  = 'O'
	oreTokenTag  = 'Q'
	oreVersion   = 2
	oreHeaderLen = 6
	oreRightLen  = ore.CiphertextLen - ore.LeftLen
	oreTokenLen  = oreHeaderLen + ore.LeftLen
	// oreMinValueLn is an ORE part with the smallest AEAD copy Tink makes
	// (5-byte prefix, 12-byte nonce, 16-byte tag, a 1-byte plaintext).
	oreMinValueLn = oreHeaderLen + ore.CiphertextLen + 34
	oreLeftAt     = oreHeaderLen + oreRightLen
	oreTailAt     = oreHeaderLen + ore.CiphertextLen
)

// oreKey is one column's ORE key and the id of the det key it came from.
type oreKey struct {
	key *ore.Key
	id  uint32
}

// oreKeyFor derives col's ORE key and its key id from the primary det
// key: the deterministic encryption of a fixed block under a per-column
// label is a PRF of the label, stretched with HKDF. Each column's key id
// is its own (values of two columns do not compare: the server refuses),
// and rotating the det keyset changes key and id, so values under the old
// key no longer compare with new bounds until the column is re-encrypted
// (prepare again).
func (c *Cipher) oreKeyFor(col Column) (*oreKey, error) {
	name := col.Table + "\x00" + col.Name
	if k, ok := c.ores.Load(name); ok {
		return k.(*oreKey), nil
	}
	seed, err := c.det.EncryptDeterministically(make([]byte, 64), []byte("encbench-ore-key/v2\x00"+name))
	if err != nil {
		return nil, fmt.Errorf("deriving the ore key of %s.%s: %w", col.Table, col.Name, err)
	}
	raw, err := hkdf.Key(sha256.New, seed, nil, "encbench ore key v2", 64+4)
	if err != nil {
		return nil, err
	}
	k, err := ore.NewKey(raw[:64])
	if err != nil {
		return nil, err
	}
	ok := &oreKey{key: k, id: binary.BigEndian.Uint32(raw[64:])}
	v, _ := c.ores.LoadOrStore(name, ok)
	return v.(*oreKey), nil
}

func oreHeader(buf []byte, tag byte, id uint32) []byte {
	buf = append(buf, tag, oreVersion)
	return binary.BigEndian.AppendUint32(buf, id)
}

func (c *Cipher) encryptOre(col Column, v Value, pt, row []byte) ([]byte, error) {
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
	left, right := body[:ore.LeftLen], body[ore.LeftLen:]
	tail, err := c.rnd.Encrypt(pt, oreAD(col, row, left[ore.LeftLen-OreIdentityLen:]))
	if err != nil {
		return nil, err
	}
	out := oreHeader(make([]byte, 0, oreTailAt+len(tail)), oreValueTag, k.id)
	out = append(out, right...)
	out = append(out, left...)
	return append(out, tail...), nil
}

// oreAD binds an ore value's AEAD copy to its column, its row and the
// identity block of its own left part: a copy spliced beside another
// value's ORE part, or moved to another row, does not decrypt.
func oreAD(col Column, row, identity []byte) []byte {
	a := ad(nil, col, row)
	a = append(a, 0)
	a = append(a, row...)
	a = append(a, 0)
	return append(a, identity...)
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

// OreTailFrom is the 0-based offset from which a stored ore value's
// identity block and AEAD copy run to its end. A reader that needs only
// the plaintext selects from there and leaves the ORE part (about 650
// bytes) on the server.
const OreTailFrom = oreTailAt - OreIdentityLen

// DecryptOreTail decrypts an ore value of col read from OreTailFrom on
// (identity block, then AEAD copy). It checks that the copy belongs to
// this column and row and to that identity block; whether the rest of the
// ORE part orders the same plaintext is OreCheck's question.
func (c *Cipher) DecryptOreTail(col Column, row, identityAndTail []byte) (Value, error) {
	if col.Scheme != Ore {
		return Value{}, fmt.Errorf("column %s.%s is not ore", col.Table, col.Name)
	}
	if len(identityAndTail) <= OreIdentityLen {
		return Value{}, notCiphertextOf(col)
	}
	return c.openOre(col, row, identityAndTail[:OreIdentityLen], identityAndTail[OreIdentityLen:])
}

func (c *Cipher) openOre(col Column, row, identity, tail []byte) (Value, error) {
	pt, err := c.rnd.Decrypt(tail, oreAD(col, row, identity))
	if err != nil {
		return Value{}, notCiphertextOf(col)
	}
	return decode(pt)
}

// oreParts checks a stored value or bound's form and returns its key id,
// its ORE ciphertext in the ore package's order (left, then right for a
// value) and, for a value, the AEAD copy.
func oreParts(b []byte) (id uint32, body, tail []byte, err error) {
	bad := errors.New("not an encbench ore value or bound")
	if len(b) < oreHeaderLen || b[1] != oreVersion {
		return 0, nil, nil, bad
	}
	id = binary.BigEndian.Uint32(b[2:6])
	switch {
	case b[0] == oreValueTag && len(b) >= oreMinValueLn:
		body = make([]byte, 0, ore.CiphertextLen)
		body = append(body, b[oreLeftAt:oreTailAt]...)
		body = append(body, b[oreHeaderLen:oreLeftAt]...)
		tail = b[oreTailAt:]
	case b[0] == oreTokenTag && len(b) == oreTokenLen:
		body = b[oreHeaderLen:]
	default:
		return 0, nil, nil, bad
	}
	if err := ore.Valid(body); err != nil {
		return 0, nil, nil, bad
	}
	return id, body, tail, nil
}

// OreCompare orders two stored values, or a stored value and a bound, as
// the server's operator class does; it needs no key. The client-side
// filter (servers without the extension) uses it.
func OreCompare(a, b []byte) (int, error) {
	ida, x, _, err := oreParts(a)
	if err != nil {
		return 0, err
	}
	idb, y, _, err := oreParts(b)
	if err != nil {
		return 0, err
	}
	if ida != idb {
		return 0, fmt.Errorf("ore values under different keys (%d, %d): another column's, or prepared before a keyset rotation", ida, idb)
	}
	return ore.Compare(x, y)
}

// OreIdentityFrom and OreIdentityLen locate, in a stored value, the last
// block of the left part: a deterministic function of the whole plaintext,
// unique per value, that a client can read without decrypting. sbtest
// binds its other columns to it when id is ore.
const (
	OreIdentityLen  = 17
	OreIdentityFrom = oreTailAt - OreIdentityLen
)

// OreIdentity returns that block of a stored ore value or bound.
func OreIdentity(b []byte) ([]byte, error) {
	switch {
	case len(b) >= oreMinValueLn && b[0] == oreValueTag:
		return b[OreIdentityFrom:oreTailAt], nil
	case len(b) == oreTokenLen && b[0] == oreTokenTag:
		return b[oreTokenLen-OreIdentityLen:], nil
	}
	return nil, errors.New("not an ore value or bound")
}

// OreCheck says whether a stored ore value's left part is v's under col's
// key (the proof that the server orders the value the client stored).
func (c *Cipher) OreCheck(col Column, v int64, stored []byte) error {
	tok, err := c.OreToken(col, v)
	if err != nil {
		return err
	}
	id, body, _, err := oreParts(stored)
	if err != nil {
		return err
	}
	if id != binary.BigEndian.Uint32(tok[2:6]) || string(body[:ore.LeftLen]) != string(tok[oreHeaderLen:]) {
		return fmt.Errorf("the ore part of %s.%s does not encrypt %d under this keyset", col.Table, col.Name, v)
	}
	return nil
}
