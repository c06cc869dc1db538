package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// The C constants of NURand (TPC-C 2.1.6). C_LAST's run value differs from
// its load value by 223-157 = 66, inside 2.1.6.1's allowed [65, 119].
const (
	cLastLoad = 157
	cLastRun  = 223
	cCID      = 259
	cOLIID    = 7911
)

// rng is TPC-C's random numbers over one worker's own generator.
type rng struct{ r *rand.Rand }

func newRNG(seed, stream uint64) rng { return rng{rand.New(rand.NewPCG(seed, stream))} }

// Int is uniform in [lo, hi].
func (g rng) Int(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// NURand is TPC-C 2.1.6's non-uniform random number.
func (g rng) NURand(a, c, x, y int) int {
	return (((g.Int(0, a) | g.Int(x, y)) + c) % (y - x + 1)) + x
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AString is a random a-string of length in [lo, hi] (4.3.2.2).
func (g rng) AString(lo, hi int) string {
	b := make([]byte, g.Int(lo, hi))
	for i := range b {
		b[i] = alnum[g.r.IntN(len(alnum))]
	}
	return string(b)
}

// NString is a random n-string of digits.
func (g rng) NString(lo, hi int) string {
	b := make([]byte, g.Int(lo, hi))
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

// Zip is four random digits and "11111" (4.3.2.7).
func (g rng) Zip() string { return g.NString(4, 4) + "11111" }

// Data is i_data / s_data: 26-50 characters, 10% with "ORIGINAL" inside.
func (g rng) Data() string {
	s := g.AString(26, 50)
	if g.Int(1, 10) == 1 {
		p := g.Int(0, len(s)-8)
		s = s[:p] + "ORIGINAL" + s[p+8:]
	}
	return s
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName is C_LAST for a number in [0, 999] (4.3.2.3).
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// Money is a random amount in cents in [lo, hi].
func (g rng) Money(lo, hi int) int64 { return int64(g.Int(lo, hi)) }

func itoa(n int) string { return strconv.Itoa(n) }
