package ycsb

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// The key and request generators of YCSB's core workload (site.ycsb.generator),
// written from its definitions so that key choice and skew match Java YCSB.

const (
	fnvOffset64 = uint64(0xCBF29CE484222325)
	fnvPrime64  = uint64(1099511628211)
)

// fnvHash64 is YCSB's Utils.fnvhash64: FNV-1a over the 8 bytes of v, low
// byte first, made non-negative as Java's Math.abs does.
func fnvHash64(v int64) int64 {
	h := fnvOffset64
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		u >>= 8
		h *= fnvPrime64
	}
	r := int64(h)
	if r < 0 {
		if r == math.MinInt64 {
			return r // Math.abs(Long.MIN_VALUE) stays negative in Java, too
		}
		r = -r
	}
	return r
}

// zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly generating
// billion-record synthetic databases"): items base..base+n-1, item 0 most
// popular.
type zipfian struct {
	base, n           int64
	theta, alpha      float64
	zetan, eta, zeta2 float64
}

const zipfianConstant = 0.99

func zeta(n int64, theta float64) float64 {
	var sum float64
	for i := int64(0); i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

func newZipfian(min, max int64, theta float64, zetan float64) *zipfian {
	z := &zipfian{base: min, n: max - min + 1, theta: theta}
	z.zeta2 = zeta(2, theta)
	z.alpha = 1 / (1 - theta)
	if zetan == 0 {
		zetan = zeta(z.n, theta)
	}
	z.zetan = zetan
	z.eta = (1 - math.Pow(2/float64(z.n), 1-theta)) / (1 - z.zeta2/z.zetan)
	return z
}

func (z *zipfian) next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(z.n)*math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// scrambledZipfian is YCSB's ScrambledZipfianGenerator: zipfian popularity
// spread over the key space by hashing, so popular keys are not neighbours.
type scrambledZipfian struct {
	min, count int64
	z          *zipfian
}

// YCSB draws from a fixed 10^10-item zipfian whose zeta is precomputed.
const (
	scrambledItems = int64(10000000000)
	scrambledZetan = 26.46902820178302
)

func newScrambledZipfian(min, max int64) *scrambledZipfian {
	return &scrambledZipfian{min: min, count: max - min + 1, z: newZipfian(0, scrambledItems-1, zipfianConstant, scrambledZetan)}
}

func (s *scrambledZipfian) next(r *rand.Rand) int64 {
	return s.min + fnvHash64(s.z.next(r))%s.count
}

// counter hands out insert key numbers to all workers; last is the highest
// number whose insert has been issued (YCSB's acknowledged counter,
// simplified: a reader may see a key a moment before its insert lands and
// then simply finds nothing).
//
// With several load generators, generator I of N takes the numbers
// start + k*N + I, so generators never insert the same key.
type counter struct {
	next          atomic.Int64 // the next k
	start         int64
	stride, index int64
}

func (c *counter) init(start int64) {
	c.start, c.stride = start, max(c.stride, 1)
	c.next.Store(0)
}

func (c *counter) take() int64 { return c.start + (c.next.Add(1)-1)*c.stride + c.index }

// last is the highest number inserted so far (by this generator; the
// others' are near it).
func (c *counter) last() int64 {
	k := c.next.Load()
	if k == 0 {
		return c.start - 1
	}
	return c.start + (k-1)*c.stride + c.index
}

// chooser picks the key number of a read, update or scan.
type chooser interface {
	next(r *rand.Rand) int64
}

type uniform struct{ min, max int64 }

func (u uniform) next(r *rand.Rand) int64 { return u.min + r.Int64N(u.max-u.min+1) }

// latest is YCSB's SkewedLatestGenerator: recent inserts are the most
// popular, with zipfian skew over their age.
type latest struct {
	c *counter
	z *zipfian
}

func (l latest) next(r *rand.Rand) int64 {
	max := l.c.last()
	if max < 0 {
		return 0
	}
	// A fresh zipfian per bound would recompute zeta; YCSB grows it
	// incrementally, this reuses the one built for the initial count and
	// caps the age, which keeps the skew for the recent items.
	age := l.z.next(r)
	if age > max {
		age = age % (max + 1)
	}
	return max - age
}
