// Package ore is order-revealing encryption of 64-bit integers: the block
// construction of Lewi and Wu ("Order-Revealing Encryption: New
// Constructions, Applications, and Lower Bounds", CCS 2016, section 4 with
// its domain extension), 8 blocks of 8 bits, over AES only:
//
//   - F, the PRF on (block, prefix, slot), is AES-256 under k1. The 256
//     slots of one block are 256 consecutive counter blocks, so they come
//     from one pipelined AES-GCM keystream (NIST SP 800-38D, section 7.1:
//     the first counter block of IV N is N || 2).
//   - The per-prefix permutation of a block's 256 values is a Fisher-Yates
//     shuffle driven by AES-256 under k2 in counter mode.
//   - H, the hash into {0,1} (a random oracle in the paper), is the low bit
//     of AES-128 keyed by the ciphertext's nonce applied to F's value, as
//     CipherStash's ore.rs instantiates it.
//
// Compact right part. The paper's right part holds CMP in Z_3 for every
// slot. A comparison only ever reads a slot at the first block where the
// two plaintexts differ (equal left blocks mean equal prefixes, the left
// parts being deterministic), where CMP is never "equal": one bit per slot
// carries it, as in ore.rs. A 64-bit value's ORE ciphertext is 136 + 16 +
// 256 = 408 bytes.
//
// Synthetic nonce. The nonce is not drawn at random but is AES-256 under
// k3 of (the plaintext, 8 bytes of SHA-256 of the caller's binding and of
// the last left block): encode-then-encipher (Bellare and Rogaway,
// ASIACRYPT 2000). Distinct (value, binding) pairs get distinct nonces,
// so the paper's requirement of a fresh nonce per encryption holds except
// when the same value is written again under the same binding (then the
// whole ciphertext repeats, which its deterministic left part already
// shows). It lets the key holder read a value back from the nonce alone
// (Open) and check its binding: a nonce moved to another row or beside
// another value's left part fails, except with probability 2^-64.
//
// Leakage of left/right ciphertexts stored side by side: for every pair of
// values, their order and the index of the first 8-bit block in which they
// differ - nothing else (the paper's leakage).
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
	"slices"
)

const (
	blocks    = 8   // 64-bit plaintexts in 8 blocks
	blockSize = 256 // 8 bits per block
	keyLen    = 32
	// NonceLen is the synthetic nonce's length.
	NonceLen = 16
	// leftBlock is a 16-byte PRF value and the permuted block.
	leftBlock = 16 + 1
	// LeftLen is the length of a left part alone (Key.Left's output).
	LeftLen = blocks * leftBlock
	// rowBits is one block's right part: a bit per slot.
	rowBits = blockSize / 8
	// rightLen is the nonce and the bits.
	rightLen = NonceLen + blocks*rowBits
	// CiphertextLen is the length of Encrypt's output: left then right.
	CiphertextLen = LeftLen + rightLen
	// IdentityLen is the last left block: a deterministic function of the
	// whole plaintext.
	IdentityLen = leftBlock
	// TailFrom is where, in a full ciphertext, the identity block and the
	// nonce run (IdentityLen + NonceLen bytes): what Open reads.
	TailFrom = LeftLen - IdentityLen
	// TailLen is the length of that run.
	TailLen = IdentityLen + NonceLen
)

// KeyLen is the raw key's length: k1 (F), k2 (permutations), k3 (nonces).
const KeyLen = 3 * keyLen

// Key holds the three AES-256 keys and the permutations of the first two
// blocks, which every value shares (block 0) or nearly shares (block 1).
// Safe for concurrent use; an Encrypter holds one worker's scratch space.
type Key struct {
	fStream cipher.AEAD  // k1 as GCM: 256 slots of F in one keystream
	pStream cipher.AEAD  // k2 as GCM: a shuffle's keystream
	f       cipher.Block // k1: one slot of F
	n       cipher.Block // k3: synthetic nonces
	first   [1 + blockSize]perm
}

// GenerateKey returns KeyLen random bytes for NewKey.
func GenerateKey() []byte {
	k := make([]byte, KeyLen)
	rand.Read(k) // never fails (crypto/rand, Go 1.24+)
	return k
}

// NewKey reads a KeyLen-byte key (k1 || k2 || k3).
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != KeyLen {
		return nil, fmt.Errorf("ore key must be %d bytes, got %d", KeyLen, len(raw))
	}
	var bs [3]cipher.Block
	for i := range bs {
		b, err := aes.NewCipher(raw[i*keyLen : (i+1)*keyLen])
		if err != nil {
			return nil, err
		}
		bs[i] = b
	}
	fs, err := cipher.NewGCM(bs[0])
	if err != nil {
		return nil, err
	}
	ps, err := cipher.NewGCM(bs[1])
	if err != nil {
		return nil, err
	}
	k := &Key{fStream: fs, pStream: ps, f: bs[0], n: bs[2]}
	var s scratch
	k.shuffle(&k.first[0], 0, 0, &s)
	for b := range blockSize {
		k.shuffle(&k.first[1+b], 1, uint64(b)<<56, &s)
	}
	return k, nil
}

// scratch is the buffers an operation passes to AES (an interface call,
// through which stack buffers would escape to the heap).
type scratch struct {
	in, out [16]byte
	stream  [shuffleStream + 16]byte
	nonce   [12]byte
}

// ordered maps an int64 to a uint64 with the same order.
func ordered(v int64) uint64 { return uint64(v) ^ (1 << 63) }

func block(x uint64, i int) byte { return byte(x >> (8 * (blocks - 1 - i))) }

// prefix is x's blocks before block i, left-aligned (the rest zero).
func prefix(x uint64, i int) uint64 {
	if i == 0 {
		return 0
	}
	return x >> (8 * (blocks - i)) << (8 * (blocks - i))
}

// fNonce is F's 12-byte GCM nonce for block i: the block index and the
// prefix, zero-padded (injective for a fixed i). Slot j is the counter
// block fNonce || j+2.
func fNonce(n *[12]byte, i int, x uint64) {
	*n = [12]byte{}
	n[0] = byte(i)
	binary.BigEndian.PutUint64(n[1:9], prefix(x, i))
}

// perm is the permutation of one block's 256 values for a prefix (the
// right part sets slots by it, so no inverse is kept).
type perm struct{ fwd [blockSize]byte }

// shuffle fills p for block i and x's prefix: Fisher-Yates driven by the
// AES-256 keystream of k2 for nonce (i, prefix, refill), 16 bits per draw,
// with Lemire's multiply-and-reject for unbiased draws.
func (k *Key) shuffle(p *perm, i int, x uint64, s *scratch) {
	var n [12]byte
	fNonce(&n, i, x)
	refill := func() {
		copy(s.nonce[:], n[:])
		clear(s.stream[:shuffleStream])
		k.pStream.Seal(s.stream[:0], s.nonce[:], s.stream[:shuffleStream], nil)
		n[11]++
	}
	refill()
	pos := 0
	for j := range p.fwd {
		p.fwd[j] = byte(j)
	}
	draw := func(bound uint32) uint32 {
		if pos == shuffleStream {
			refill()
			pos = 0
		}
		m := (uint32(s.stream[pos])<<8 | uint32(s.stream[pos+1])) * bound
		pos += 2
		return m
	}
	for j := blockSize - 1; j > 0; j-- {
		bound := uint32(j + 1)
		m := draw(bound)
		// The threshold is below bound, so the division that computes it
		// is needed only for a low half below bound (Lemire, "Fast Random
		// Integer Generation in an Interval", 2019, algorithm 5).
		if m&0xffff < bound {
			threshold := (65536 - bound) % bound
			for m&0xffff < threshold {
				m = draw(bound)
			}
		}
		r := m >> 16
		p.fwd[j], p.fwd[r] = p.fwd[r], p.fwd[j]
	}
}

// zeroSlots is what F's keystream is sealed over: 256 zero blocks.
var zeroSlots [blockSize * 16]byte

// shuffleStream is one keystream draw: 256 16-bit draws, enough for a
// shuffle but for a rare rejection.
const shuffleStream = 512

// Encrypter is one worker's ORE state: scratch space and a bounded cache
// of permutations. Not safe for concurrent use.
type Encrypter struct {
	k     *Key
	s     scratch
	f     [blockSize*16 + 16]byte // 256 F values and GCM's tag
	h     [8 * 16]byte            // H's AES outputs for 8 slots
	tmp   [blocks]perm
	perms [blocks]*perm
	cache map[uint64]*perm
}

// maxCachedPerms bounds an Encrypter's cache (256 bytes each: 1 MiB).
const maxCachedPerms = 4096

// NewEncrypter returns scratch space for one worker.
func (k *Key) NewEncrypter() *Encrypter {
	return &Encrypter{k: k, cache: make(map[uint64]*perm)}
}

func (e *Encrypter) permutation(i int, x uint64) *perm {
	switch i {
	case 0:
		return &e.k.first[0]
	case 1:
		return &e.k.first[1+int(block(x, 0))]
	}
	id := uint64(i)<<56 | prefix(x, i)>>8
	if p, ok := e.cache[id]; ok {
		return p
	}
	p := &e.tmp[i]
	if len(e.cache) < maxCachedPerms {
		p = new(perm)
		e.cache[id] = p
	}
	e.k.shuffle(p, i, x, &e.s)
	return p
}

// slotF writes F(i, prefix, j) into out.
func (e *Encrypter) slotF(out []byte, i int, x uint64, j byte) {
	fNonce((*[12]byte)(e.s.in[:12]), i, x)
	binary.BigEndian.PutUint32(e.s.in[12:], uint32(j)+2)
	e.k.f.Encrypt(out, e.s.in[:])
}

// left writes x's left part and keeps its permutations in e.perms.
func (e *Encrypter) left(x uint64, left []byte) {
	for i := range blocks {
		e.perms[i] = e.permutation(i, x)
		px := e.perms[i].fwd[block(x, i)]
		blk := left[i*leftBlock : (i+1)*leftBlock]
		e.slotF(blk[:16], i, x, px)
		blk[16] = px
	}
}

// Left appends v's left part only: enough to compare against stored full
// ciphertexts (a query bound), never against another left part.
func (e *Encrypter) Left(dst []byte, v int64) []byte {
	dst = slices.Grow(dst, LeftLen)[:len(dst)+LeftLen]
	e.left(ordered(v), dst[len(dst)-LeftLen:])
	return dst
}

// Encrypt appends v's full ciphertext (left, then nonce and right bits),
// bound to bind (for example the row's key): Open succeeds only with the
// same binding.
func (e *Encrypter) Encrypt(dst []byte, v int64, bind []byte) ([]byte, error) {
	dst = slices.Grow(dst, CiphertextLen)[:len(dst)+CiphertextLen]
	out := dst[len(dst)-CiphertextLen:]
	x := ordered(v)
	left, nonce, right := out[:LeftLen], out[LeftLen:LeftLen+NonceLen], out[LeftLen+NonceLen:]
	e.left(x, left)
	e.nonce(nonce, x, left[TailFrom:], bind)
	h, err := aes.NewCipher(nonce)
	if err != nil {
		return nil, err
	}
	for i := range blocks {
		fNonce(&e.s.nonce, i, x)
		// F's 256 slots: the keystream of zero bytes, read from a shared
		// zero block (sealing in place would first have to clear it).
		e.k.fStream.Seal(e.f[:0], e.s.nonce[:], zeroSlots[:], nil)
		row := (*[rowBits]byte)(right[i*rowBits:])
		// Slot j holds [pi^-1(j) > x_i]: set the slot pi(v) of every
		// v above x_i (half the slots on average, no inverse read).
		*row = [rowBits]byte{}
		fwd := &e.perms[i].fwd
		for v := int(block(x, i)) + 1; v < blockSize; v++ {
			slot := fwd[v]
			row[slot>>3] |= 1 << (slot & 7)
		}
		for j := 0; j < blockSize; j += 8 { // independent calls, which overlap
			for k := range 8 {
				h.Encrypt(e.h[16*k:16*k+16], e.f[16*(j+k):16*(j+k)+16])
			}
			// each slot's bit masked by H(F(slot), nonce), H's low bit
			row[j>>3] ^= e.h[15]&1 | e.h[31]&1<<1 | e.h[47]&1<<2 | e.h[63]&1<<3 |
				e.h[79]&1<<4 | e.h[95]&1<<5 | e.h[111]&1<<6 | e.h[127]&1<<7
		}
	}
	return dst, nil
}

// nonce writes the synthetic nonce: AES_k3(x || SHA-256(identity || bind)[:8]).
func (e *Encrypter) nonce(out []byte, x uint64, identity, bind []byte) {
	binary.BigEndian.PutUint64(e.s.in[:8], x)
	tagOf(e.s.in[8:], identity, bind)
	e.k.n.Encrypt(out, e.s.in[:])
}

// tagOf is the binding's check value.
func tagOf(out, identity, bind []byte) {
	d := sha256.New()
	d.Write(identity)
	d.Write(bind)
	var sum [sha256.Size]byte
	copy(out, d.Sum(sum[:0])[:8])
}

// ErrNotOpened is a tail that is not a value under this key and binding.
var ErrNotOpened = errors.New("ore: not a ciphertext of this key and binding")

// Open reads the plaintext of a ciphertext's tail (its TailLen bytes from
// TailFrom) and checks that it was made with this binding and beside this
// identity block. It needs neither the rest of the left part nor the right
// part.
func (e *Encrypter) Open(tail, bind []byte) (int64, error) {
	if len(tail) != TailLen {
		return 0, ErrMalformed
	}
	e.k.n.Decrypt(e.s.out[:], tail[IdentityLen:])
	var want [8]byte
	tagOf(want[:], tail[:IdentityLen], bind)
	if !bytes.Equal(want[:], e.s.out[8:]) {
		return 0, ErrNotOpened
	}
	return int64(binary.BigEndian.Uint64(e.s.out[:8]) ^ 1<<63), nil
}

// ErrMalformed is a ciphertext of the wrong length.
var ErrMalformed = errors.New("ore: malformed ciphertext")

// ErrInconsistent is a comparison that a genuine pair of full ciphertexts
// never gives: two that order each other differently in the two
// directions. It means one of them was forged or damaged.
var ErrInconsistent = errors.New("ore: inconsistent ciphertexts (forged or damaged)")

// ErrTwoLefts: two left parts alone cannot be ordered (by design).
var ErrTwoLefts = errors.New("ore: two left parts cannot be compared; one side needs its right part")

// Compare returns -1, 0 or 1 as a's plaintext is less than, equal to or
// greater than b's. Each side is a full ciphertext or a left part; at least
// one must be full. It needs no key: this is what a server runs.
//
// Two full ciphertexts are compared in both directions, which must agree,
// and two whose last left blocks (the PRF of the whole plaintext) are
// equal must be equal throughout. That refuses damage and naive forgeries;
// it cannot refuse a value a writer builds from public data (stored left
// blocks mixed, right bits set from the other values' left parts and its
// own nonce so that both directions agree): such a value may order
// inconsistently (a < b < forged < a) and make index and sequential scans
// disagree. Only the key holder detects it, by the value's MAC on read.
func Compare(a, b []byte) (int, error) {
	if !wellFormed(a) || !wellFormed(b) {
		return 0, ErrMalformed
	}
	i := firstDifference(a[:LeftLen], b[:LeftLen])
	if i < 0 {
		return 0, nil
	}
	// The last block is the PRF of the whole plaintext: equal last blocks
	// with any other block different is no pair of genuine values.
	if bytes.Equal(a[TailFrom:LeftLen], b[TailFrom:LeftLen]) {
		return 0, ErrInconsistent
	}
	fullA, fullB := len(a) == CiphertextLen, len(b) == CiphertextLen
	switch {
	case fullB:
		r, err := compareAt(i, a[:LeftLen], b[LeftLen:])
		if err != nil {
			return 0, err
		}
		if fullA {
			back, err := compareAt(i, b[:LeftLen], a[LeftLen:])
			if err != nil {
				return 0, err
			}
			if back != -r {
				return 0, ErrInconsistent
			}
		}
		return r, nil
	case fullA:
		r, err := compareAt(i, b[:LeftLen], a[LeftLen:])
		return -r, err
	}
	return 0, ErrTwoLefts
}

func wellFormed(c []byte) bool { return len(c) == CiphertextLen || len(c) == LeftLen }

// firstDifference is the first block whose left parts differ, or -1: equal
// left blocks mean equal plaintext prefixes (the PRF is keyed by the prefix).
func firstDifference(a, b []byte) int {
	for i := range blocks {
		if !bytes.Equal(a[i*leftBlock:(i+1)*leftBlock], b[i*leftBlock:(i+1)*leftBlock]) {
			return i
		}
	}
	return -1
}

// compareAt is Lewi-Wu's comparison at block i: the slot the left part
// names in the right part, unmasked by H.
func compareAt(i int, left, right []byte) (int, error) {
	nonce := right[:NonceLen]
	blk := left[i*leftBlock : (i+1)*leftBlock]
	slot := int(blk[16])
	h, err := aes.NewCipher(nonce)
	if err != nil {
		return 0, err
	}
	var out [16]byte
	h.Encrypt(out[:], blk[:16])
	bit := right[NonceLen+i*rowBits+slot/8] >> (slot % 8) & 1
	if bit^out[15]&1 == 1 {
		return 1, nil
	}
	return -1, nil
}
