package colenc

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
)

// sivKey is AES-SIV (RFC 5297) with a 512-bit key as Tink's deterministic
// AEAD uses it: S2V over CMAC-AES-256 (RFC 4493) under the first half, CTR
// under the second, with one associated-data component, output V || C.
// Tink's own implementation makes an AES key schedule and several
// allocations per call; this one keeps the key schedules, the CMAC
// subkeys and S2V's first step, and works in caller-owned scratch space.
// TestSIVMatchesTink and the RFC's vector (TestSIVVectorRFC5297) prove the
// bytes are Tink's.
type sivKey struct {
	mac, ctr cipher.Block
	k1, k2   [16]byte // CMAC subkeys (RFC 4493, section 2.3)
	d0       [16]byte // S2V's D after its first step: dbl(CMAC(0^128))
}

// sivScratch is what the AES calls write to: one per Field, since a
// buffer passed to an interface method escapes to the heap.
type sivScratch struct {
	x      [16]byte
	ks     []byte     // counter blocks, then keystream
	msg    []byte     // CMAC's padded input, then its CBC output
	chains []keyChain // one CBC encrypter per MAC key used
}

func newSIVKey(raw []byte) (*sivKey, error) {
	if len(raw) != 32 && len(raw) != 64 {
		return nil, fmt.Errorf("aes-siv key must be 32 or 64 bytes, got %d", len(raw))
	}
	half := len(raw) / 2
	mac, err := aes.NewCipher(raw[:half])
	if err != nil {
		return nil, err
	}
	ctr, err := aes.NewCipher(raw[half:])
	if err != nil {
		return nil, err
	}
	if _, ok := cipher.NewCBCEncrypter(mac, zeroBlock[:]).(cbcEncrypter); !ok {
		return nil, fmt.Errorf("aes-siv: this Go's CBC encrypter cannot be reset (no SetIV)")
	}
	k := &sivKey{mac: mac, ctr: ctr}
	var s sivScratch
	mac.Encrypt(s.x[:], s.x[:]) // L = AES(0)
	k.k1 = s.x
	dbl(&k.k1)
	k.k2 = k.k1
	dbl(&k.k2)
	var zero [16]byte
	k.cmac(zero[:], &s) // of the 128-bit zero block, not of the empty string
	k.d0 = s.x
	dbl(&k.d0)
	return k, nil
}

// dbl is multiplication by x in GF(2^128) (RFC 5297, section 2.3).
func dbl(b *[16]byte) {
	carry := b[0] >> 7
	for i := 0; i < 15; i++ {
		b[i] = b[i]<<1 | b[i+1]>>7
	}
	b[15] = b[15]<<1 ^ byte(subtle.ConstantTimeSelect(int(carry), 0x87, 0))
}

func xor16(dst *[16]byte, src []byte) {
	_ = src[15]
	binary.LittleEndian.PutUint64(dst[:8], binary.LittleEndian.Uint64(dst[:8])^binary.LittleEndian.Uint64(src[:8]))
	binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(dst[8:])^binary.LittleEndian.Uint64(src[8:16]))
}

// cmac leaves AES-CMAC(msg) in s.x (RFC 4493, section 2.4).
func (k *sivKey) cmac(msg []byte, s *sivScratch) {
	k.cmacXorEnd(msg, nil, s)
}

// cmacXorEnd is cmac of msg with end xored into its last 16 bytes (S2V's
// "xorend", RFC 5297 section 2.1; msg is then at least 16 bytes long).
// RFC 4493's CBC chain over M_1 .. M_n-1 and the last block (xored with
// K1, or padded and xored with K2) is CBC encryption under a zero IV of
// that padded message, whose last output block is the MAC: one CryptBlocks
// call on a copy of msg costs less than an AES call and a xor per block.
func (k *sivKey) cmacXorEnd(msg []byte, end *[16]byte, s *sivScratch) {
	n := len(msg)
	complete := n > 0 && n%16 == 0
	padded := (n + 16) / 16 * 16
	if complete {
		padded = n
	}
	if cap(s.msg) < padded {
		s.msg = make([]byte, padded)
	}
	m := s.msg[:padded]
	copy(m, msg)
	if end != nil {
		xor16((*[16]byte)(m[n-16:n]), end[:])
	}
	last := (*[16]byte)(m[padded-16:])
	if complete {
		xor16(last, k.k1[:])
	} else {
		clear(m[n:])
		m[n] = 0x80
		xor16(last, k.k2[:])
	}
	c := s.chain(k)
	c.SetIV(zeroBlock[:])
	c.CryptBlocks(m, m)
	s.x = *last
}

var zeroBlock [16]byte

// cbcEncrypter is crypto/cipher's CBC encrypter with its IV settable (the
// standard library's AES one has SetIV), so a Field makes one per key.
type cbcEncrypter interface {
	cipher.BlockMode
	SetIV([]byte)
}

// chain returns the scratch's CBC encrypter for k's MAC key.
func (s *sivScratch) chain(k *sivKey) cbcEncrypter {
	for _, c := range s.chains {
		if c.k == k {
			return c.cbc
		}
	}
	c, _ := cipher.NewCBCEncrypter(k.mac, zeroBlock[:]).(cbcEncrypter) // checked by newSIVKey
	s.chains = append(s.chains, keyChain{k, c})
	return c
}

type keyChain struct {
	k   *sivKey
	cbc cbcEncrypter
}

// adState is S2V's D after the associated data: dbl(CMAC(0)) xor CMAC(ad)
// (RFC 5297, section 2.4). A det column's associated data is fixed, so
// this runs once per column and key.
func (k *sivKey) adState(ad []byte, s *sivScratch) [16]byte {
	k.cmac(ad, s)
	d := k.d0
	xor16(&d, s.x[:])
	return d
}

// s2v leaves V = S2V(ad, pt) in s.x, given adState(ad).
func (k *sivKey) s2v(d [16]byte, pt []byte, s *sivScratch) {
	if len(pt) >= 16 {
		k.cmacXorEnd(pt, &d, s) // T = pt xorend D
		return
	}
	dbl(&d) // T = dbl(D) xor pad(pt)
	var padded [16]byte
	copy(padded[:], pt)
	padded[len(pt)] = 0x80
	xor16(&d, padded[:])
	k.cmac(d[:], s)
}

// ctrXOR is the CTR step: dst = src xor the keystream from the 128-bit
// big-endian counter V with bits 31 and 63 of its low half cleared (RFC
// 5297, section 2.6). The counter blocks are all written before the first
// is enciphered: AES calls on independent blocks then overlap in the CPU,
// where writing each counter just before its call stalls on the store.
func (k *sivKey) ctrXOR(dst, src []byte, v []byte, s *sivScratch) {
	hi, lo := binary.BigEndian.Uint64(v[:8]), binary.BigEndian.Uint64(v[8:16])&^(1<<63|1<<31)
	n := (len(src) + 15) / 16 * 16
	if cap(s.ks) < 2*n {
		s.ks = make([]byte, 2*n)
	}
	ctrs, ks := s.ks[:n], s.ks[n:2*n]
	for off := 0; off < n; off += 16 {
		binary.BigEndian.PutUint64(ctrs[off:], hi)
		binary.BigEndian.PutUint64(ctrs[off+8:], lo)
		if lo++; lo == 0 {
			hi++
		}
	}
	for off := 0; off < n; off += 16 {
		k.ctr.Encrypt(ks[off:off+16], ctrs[off:off+16])
	}
	subtle.XORBytes(dst[:len(src)], src, ks[:len(src)])
}

// seal turns dst[v+16:] (the plaintext) into C in place and writes V at
// dst[v:v+16].
func (k *sivKey) seal(dst []byte, v int, d [16]byte, s *sivScratch) {
	pt := dst[v+16:]
	k.s2v(d, pt, s)
	copy(dst[v:v+16], s.x[:])
	k.ctrXOR(pt, pt, dst[v:v+16], s)
}

// open decrypts V || C into dst and checks V.
func (k *sivKey) open(dst, ct []byte, d [16]byte, s *sivScratch) ([]byte, bool) {
	if len(ct) < 16 {
		return nil, false
	}
	n := len(ct) - 16
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	pt := dst[:n]
	k.ctrXOR(pt, ct[16:], ct[:16], s)
	k.s2v(d, pt, s)
	return pt, subtle.ConstantTimeCompare(s.x[:], ct[:16]) == 1
}
