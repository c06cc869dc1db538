// Package ore is order-revealing encryption of 64-bit integers: the block
// construction of Lewi and Wu ("Order-Revealing Encryption: New
// Constructions, Applications, and Lower Bounds", CCS 2016, section 4 with
// its domain extension), over AES-256 (PRF), an AES-keyed shuffle (PRP on
// one block) and SHA-256 (the hash H into Z_3, a random oracle in the
// paper), all from Go's crypto.
//
// A ciphertext has a left part and a right part. Compare(left(x), right(y))
// tells the order of x and y; a right part alone says nothing. Stored
// together (so a server can compare any two values) they reveal, for every
// pair of values, their order and the index of the first 8-bit block in which
// they differ - nothing else (the paper's leakage for left/right ciphertexts
// kept side by side). Left parts are deterministic, which is what that
// leakage already allows: Compare finds the first differing block by
// comparing left parts and evaluates H once, at that block. A query bound
// needs only a left part (Key.Left), which is far cheaper to make.
package ore

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

const (
	blocks    = 8   // 64-bit plaintexts in 8 blocks
	blockSize = 256 // 8 bits per block
	keyLen    = 32
	nonceLen  = 16
	// leftBlock is a 16-byte PRF value and the permuted block.
	leftBlock = 16 + 1
	// LeftLen is the length of a left part alone (Key.Left's output).
	LeftLen = blocks * leftBlock
	leftLen = LeftLen
	// rightLen is the nonce and 2 bits for each of the 256 values of each block.
	rightLen = nonceLen + blocks*blockSize/4
	// CiphertextLen is the length of Encrypt's output: left then right.
	CiphertextLen = leftLen + rightLen
)

// Key holds the two AES-256 keys: k1 for the PRF F, k2 for the per-prefix
// permutations.
type Key struct {
	f, p cipher.Block
	// perms caches permutations by block and prefix: values near each
	// other share most prefixes, and a shuffle costs far more than a lookup.
	perms  sync.Map // permKey -> *perm
	cached atomic.Int64
}

type permKey struct {
	block  int
	prefix uint64
}

// maxCachedPerms bounds the cache (512 bytes each: 8 MiB).
const maxCachedPerms = 16384

// NewKey reads a 64-byte key (k1 || k2).
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != 2*keyLen {
		return nil, fmt.Errorf("ore key must be %d bytes, got %d", 2*keyLen, len(raw))
	}
	f, err := aes.NewCipher(raw[:keyLen])
	if err != nil {
		return nil, err
	}
	p, err := aes.NewCipher(raw[keyLen:])
	if err != nil {
		return nil, err
	}
	return &Key{f: f, p: p}, nil
}

// GenerateKey returns 64 random bytes for NewKey.
func GenerateKey() ([]byte, error) {
	k := make([]byte, 2*keyLen)
	_, err := rand.Read(k)
	return k, err
}

// ordered maps an int64 to a uint64 with the same order.
func ordered(v int64) uint64 { return uint64(v) ^ (1 << 63) }

// prefixInput is F's 16-byte input for block i: the block index, the
// plaintext blocks before it and one more byte (the permuted block, or 0 for
// the permutation's own key). Injective for a fixed i.
func prefixInput(i int, x uint64, last byte) [16]byte {
	var in [16]byte
	in[0] = byte(i)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], x)
	copy(in[1:1+i], b[:i])
	in[9] = last
	return in
}

func block(x uint64, i int) byte { return byte(x >> (8 * (blocks - 1 - i))) }

// perm is the permutation of one block's 256 values for a prefix: a
// Fisher-Yates shuffle driven by AES-CTR under a key derived from the prefix.
type perm struct{ fwd, inv [blockSize]byte }

func (k *Key) permutation(i int, x uint64) (*perm, error) {
	pk := permKey{block: i}
	if i > 0 {
		pk.prefix = x >> (8 * (blocks - i))
	}
	if p, ok := k.perms.Load(pk); ok {
		return p.(*perm), nil
	}
	p, err := k.shuffle(i, x)
	if err == nil && k.cached.Load() < maxCachedPerms {
		if _, loaded := k.perms.LoadOrStore(pk, p); !loaded {
			k.cached.Add(1)
		}
	}
	return p, err
}

func (k *Key) shuffle(i int, x uint64) (*perm, error) {
	in := prefixInput(i, x, 0)
	var seed [32]byte
	k.p.Encrypt(seed[:16], in[:])
	in[15] = 1
	k.p.Encrypt(seed[16:], in[:])
	c, err := aes.NewCipher(seed[:])
	if err != nil {
		return nil, err
	}
	stream := cipher.NewCTR(c, make([]byte, aes.BlockSize))
	p := &perm{}
	for j := range p.fwd {
		p.fwd[j] = byte(j)
	}
	// The keystream is drawn in chunks: one call per 2-byte draw dominated
	// the cost of a left part.
	var buf [512]byte
	pos := len(buf)
	for j := blockSize - 1; j > 0; j-- {
		// Rejection sampling keeps the shuffle uniform.
		limit := 65536 - 65536%(j+1)
		var r int
		for {
			if pos == len(buf) {
				buf = [512]byte{}
				stream.XORKeyStream(buf[:], buf[:])
				pos = 0
			}
			r = int(binary.BigEndian.Uint16(buf[pos:]))
			pos += 2
			if r < limit {
				break
			}
		}
		r %= j + 1
		p.fwd[j], p.fwd[r] = p.fwd[r], p.fwd[j]
	}
	for j, v := range p.fwd {
		p.inv[v] = byte(j)
	}
	return p, nil
}

// prf is F(k1, input).
func (k *Key) prf(in [16]byte) [16]byte {
	var out [16]byte
	k.f.Encrypt(out[:], in[:])
	return out
}

// h is the hash into Z_3: SHA-256 of a PRF value and the nonce (one
// compression; the input has a fixed length, so there is no extension to
// worry about). Reducing 64 bits mod 3 leaves a bias below 2^-62. The
// PostgreSQL extension (tools/pg-ore) computes the same function.
func h(key []byte, nonce []byte) byte {
	var in [16 + nonceLen]byte
	copy(in[:16], key)
	copy(in[16:], nonce)
	sum := sha256.Sum256(in[:])
	return byte(binary.BigEndian.Uint64(sum[:8]) % 3)
}

// cmp3 is CMP(a, b) in Z_3: 0 equal, 1 a > b, 2 (= -1) a < b.
func cmp3(a, b byte) byte {
	switch {
	case a == b:
		return 0
	case a > b:
		return 1
	}
	return 2
}

// Encrypt returns left || right for v, with a fresh random nonce.
func (k *Key) Encrypt(v int64) ([]byte, error) {
	var nonce [nonceLen]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return k.encrypt(v, nonce)
}

// Left returns v's left part only: enough to compare against stored full
// ciphertexts (a query bound), never against another left part.
func (k *Key) Left(v int64) ([]byte, error) {
	out := make([]byte, LeftLen)
	return out, k.fill(ordered(v), out, nil)
}

func (k *Key) encrypt(v int64, n [nonceLen]byte) ([]byte, error) {
	out := make([]byte, CiphertextLen)
	copy(out[leftLen:], n[:])
	return out, k.fill(ordered(v), out[:leftLen], out[leftLen:])
}

// fill writes x's left part and, when right is not nil (its nonce already
// in place), its right part.
func (k *Key) fill(x uint64, left, right []byte) error {
	for i := 0; i < blocks; i++ {
		p, err := k.permutation(i, x)
		if err != nil {
			return err
		}
		xi := block(x, i)
		px := p.fwd[xi]
		f := k.prf(prefixInput(i, x, px))
		copy(left[i*leftBlock:], f[:])
		left[i*leftBlock+16] = px
		if right == nil {
			continue
		}
		nonce := right[:nonceLen]
		// Right part: for every slot j, CMP(pi^-1(j), x_i) masked by H.
		row := right[nonceLen+i*blockSize/4 : nonceLen+(i+1)*blockSize/4]
		for j := 0; j < blockSize; j++ {
			fj := k.prf(prefixInput(i, x, byte(j)))
			z := (cmp3(p.inv[j], xi) + h(fj[:], nonce)) % 3
			row[j/4] |= z << (2 * (j % 4))
		}
	}
	return nil
}

// ErrMalformed is a ciphertext of the wrong length, or one whose right
// part holds a value no encryption produces.
var ErrMalformed = errors.New("ore: malformed ciphertext")

// ErrInconsistent is a comparison that a genuine pair of ciphertexts
// never gives: "equal" at a block where the left parts differ, or two
// full ciphertexts that order each other differently in the two
// directions. It means one of them was forged or damaged.
var ErrInconsistent = errors.New("ore: inconsistent ciphertexts (forged or damaged)")

// ErrTwoLefts: two left parts alone cannot be ordered (by design).
var ErrTwoLefts = errors.New("ore: two left parts cannot be compared; one side needs its right part")

// Compare returns -1, 0 or 1 as a's plaintext is less than, equal to or
// greater than b's. Each side is a full ciphertext or a left part; at least
// one must be full. It needs no key: this is what a server runs.
//
// Two full ciphertexts are compared in both directions, which must agree;
// a result of "equal" where the left parts differ is an error too. So a
// damaged or forged right part cannot make an order that depends on which
// side is asked (what corrupts a btree index), short of a forgery made
// against one particular value.
func Compare(a, b []byte) (int, error) {
	if !wellFormed(a) || !wellFormed(b) {
		return 0, ErrMalformed
	}
	i := firstDifference(a[:leftLen], b[:leftLen])
	if i < 0 {
		return 0, nil
	}
	fullA, fullB := len(a) == CiphertextLen, len(b) == CiphertextLen
	var r int
	switch {
	case fullB:
		r = compareAt(i, a[:leftLen], b[leftLen:])
		if fullA && r != 0 && -compareAt(i, b[:leftLen], a[leftLen:]) != r {
			return 0, ErrInconsistent
		}
	case fullA:
		r = -compareAt(i, b[:leftLen], a[leftLen:])
	default:
		return 0, ErrTwoLefts
	}
	if r == 0 {
		return 0, ErrInconsistent
	}
	return r, nil
}

// Valid checks a ciphertext's form without the key: its length and, for
// a full ciphertext, that every 2-bit value of the right part is in Z_3.
func Valid(c []byte) error {
	if !wellFormed(c) {
		return ErrMalformed
	}
	if len(c) == CiphertextLen {
		for _, b := range c[leftLen+nonceLen:] {
			for s := 0; s < 8; s += 2 {
				if b>>s&3 == 3 {
					return ErrMalformed
				}
			}
		}
	}
	return nil
}

func wellFormed(c []byte) bool { return len(c) == CiphertextLen || len(c) == LeftLen }

// firstDifference is the first block whose left parts differ, or -1: equal
// left blocks mean equal plaintext prefixes (the PRF is keyed by the prefix).
func firstDifference(a, b []byte) int {
	for i := 0; i < blocks; i++ {
		if !bytes.Equal(a[i*leftBlock:(i+1)*leftBlock], b[i*leftBlock:(i+1)*leftBlock]) {
			return i
		}
	}
	return -1
}

// compareAt is Lewi-Wu's comparison at block i: the slot the left part
// names in the right part, unmasked by H.
func compareAt(i int, left, right []byte) int {
	nonce := right[:nonceLen]
	f := left[i*leftBlock : i*leftBlock+16]
	slot := int(left[i*leftBlock+16])
	z := right[nonceLen+i*blockSize/4+slot/4] >> (2 * (slot % 4)) & 3
	if z == 3 {
		return 0 // never produced: reported as inconsistent
	}
	switch (z + 3 - h(f, nonce)) % 3 {
	case 1:
		return 1
	case 2:
		return -1
	}
	return 0
}
