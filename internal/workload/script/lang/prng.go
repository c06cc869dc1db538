package lang

import (
	"math"
	"math/bits"
)

// PRNG is pgbench's generator: xoroshiro128** 1.0 (Blackman and Vigna,
// "Scrambled linear pseudorandom number generators", ACM TOMS 47(4),
// 2021), its state filled from a 64-bit seed by splitmix64 (Steele, Lea
// and Flood, OOPSLA 2014), as PostgreSQL's pg_prng does; so permute()
// gives pgbench's permutation for a seed. Not cryptographic: it draws
// benchmark inputs.
type PRNG struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Seed sets the state from a 64-bit seed (never all zeroes).
func (p *PRNG) Seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

func rotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// Uint64 is the next 64 bits.
func (p *PRNG) Uint64() uint64 {
	s0, sx := p.s0, p.s1^p.s0
	v := rotl(s0*5, 7) * 9
	p.s0 = rotl(s0, 24) ^ sx ^ sx<<16
	p.s1 = rotl(sx, 37)
	return v
}

// Range is uniform in [lo, hi] by bitmask rejection.
func (p *PRNG) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(64 - bits.Len64(r))
	for {
		if v := p.Uint64() >> shift; v <= r {
			return lo + v
		}
	}
}

// Float64 is uniform in [0, 1) with 52 random bits.
func (p *PRNG) Float64() float64 { return math.Ldexp(float64(p.Uint64()>>12), -52) }

// Normal is a standard normal variate (Box-Muller, one output).
func (p *PRNG) Normal() float64 {
	u1 := 1 - p.Float64()
	u2 := 1 - p.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Sin(2*math.Pi*u2)
}
