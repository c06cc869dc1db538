package lang

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// The distributions' parameter bounds (pgbench's MIN_GAUSSIAN_PARAM,
// MIN_ZIPFIAN_PARAM and MAX_ZIPFIAN_PARAM).
const (
	minGaussian = 2.0
	minZipfian  = 1.001
	maxZipfian  = 1000.0
)

// randomRange checks random()'s bounds: not empty, and ub-lb+1 fits.
func randomRange(lb, ub int64) error {
	if lb > ub {
		return errors.New("empty range given to random")
	}
	d, err := checkedArith('-', ub, lb)
	if err == nil {
		_, err = checkedArith('+', d, 1)
	}
	if err != nil {
		return errors.New("random range is too large")
	}
	return nil
}

func uniform(p *PRNG, lb, ub int64) int64 {
	return lb + int64(p.Range(0, uint64(ub-lb)))
}

// exponential: a truncated exponential projected on [lb, ub]; parameter
// is where it is cut (the manual's f(x)).
func exponential(p *PRNG, lb, ub int64, param float64) int64 {
	cut := math.Exp(-param)
	u := 1 - p.Float64()
	r := -math.Log(cut+(1-cut)*u) / param
	return lb + int64(float64(ub-lb+1)*r)
}

// gaussian: a normal variate kept within [-param, param), mapped on
// [lb, ub].
func gaussian(p *PRNG, lb, ub int64, param float64) int64 {
	var z float64
	for {
		z = p.Normal()
		if z >= -param && z < param {
			break
		}
	}
	r := (z + param) / (param * 2)
	return lb + int64(float64(ub-lb+1)*r)
}

// zipfian: Devroye's rejection method ("Non-Uniform Random Variate
// Generation", Springer 1986, pp. 550-551), for s > 1, bounded at n.
func zipfian(p *PRNG, lb, ub int64, s float64) int64 {
	n := ub - lb + 1
	if n <= 1 {
		return lb
	}
	b := math.Pow(2, s-1)
	for {
		u, v := p.Float64(), p.Float64()
		x := math.Floor(math.Pow(u, -1/(s-1)))
		t := math.Pow(1+1/x, s-1)
		if v*x*(t-1)/(b-1) <= t/b && x <= float64(n) {
			return lb - 1 + int64(x)
		}
	}
}

// FNV-1a over the value's eight bytes, least significant first, the
// offset basis xored with the seed (pgbench's getHashFnv1a).
func hashFNV1a(val int64, seed int64) int64 {
	const offset, prime = 0xcbf29ce484222325, 0x100000001b3
	h := uint64(offset) ^ uint64(seed)
	for i := 0; i < 8; i++ {
		h ^= uint64(val & 0xff)
		val >>= 8
		h *= prime
	}
	return int64(h)
}

// MurmurHash64A (Appleby's MurmurHash2, 64-bit) of one 8-byte value.
func hashMurmur2(val int64, seed int64) int64 {
	const m, r = 0xc6a4a7935bd1e995, 47
	h := uint64(seed) ^ 0x35253c9ade8f4ca8 // m*8 modulo 2^64, for the 8 bytes hashed
	k := uint64(val)
	k *= m
	k ^= k >> r
	k *= m
	h ^= k
	h *= m
	h ^= h >> r
	h *= m
	h ^= h >> r
	return int64(h)
}

// permute is pgbench's pseudorandom permutation of [0, size): six rounds
// of an odd multiply, xor and rotate on the overlapping lower and upper
// power-of-two halves, then a random offset, from a generator seeded
// with seed. A bijection for every seed; not cryptographic.
func permute(val, size, seed int64) int64 {
	if size < 2 {
		return 0
	}
	var p PRNG
	p.Seed(uint64(seed))
	n := uint64(size)
	v := uint64(val) % n
	masklen := uint(bits.Len64(n) - 1)
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := p.Uint64()&mask | 1
		r := p.Uint64() & mask
		if v <= mask {
			v = (v*m ^ r) & mask
			v = (v<<1)&mask | v>>(masklen-1)
		}
		m = p.Uint64()&mask | 1
		r = p.Uint64() & mask
		t := n - 1 - v
		if t <= mask {
			t = (t*m ^ r) & mask
			t = (t<<1)&mask | t>>(masklen-1)
			v = n - 1 - t
		}
		v = (v + p.Range(0, n-1)) % n
	}
	return int64(v)
}

// checkedArith is + - * / % on integers with pgbench's errors.
func checkedArith(op byte, a, b int64) (int64, error) {
	switch op {
	case '+':
		s := a + b
		if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
			return 0, errors.New("bigint add out of range")
		}
		return s, nil
	case '-':
		d := a - b
		if (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0) {
			return 0, errors.New("bigint sub out of range")
		}
		return d, nil
	case '*':
		if a == 0 || b == 0 {
			return 0, nil
		}
		p := a * b
		if p/b != a || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 {
			return 0, errors.New("bigint mul out of range")
		}
		return p, nil
	case '/', '%':
		if b == 0 {
			return 0, errors.New("division by zero")
		}
		if b == -1 {
			if op == '%' {
				return 0, nil
			}
			if a == math.MinInt64 {
				return 0, errors.New("bigint div out of range")
			}
			return -a, nil
		}
		if op == '/' {
			return a / b, nil
		}
		return a % b, nil
	}
	return 0, fmt.Errorf("no operator %c", op)
}
