// Package randgen reproduces sysbench's random number distributions
// (uniform, gaussian, special, pareto, zipfian) and string templates.
// A Source belongs to one worker and is not safe for concurrent use.
package randgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Options are sysbench's --rand-* options.
type Options struct {
	Type       string  `json:"rand_type"`
	SpecIter   int     `json:"rand_spec_iter"`
	SpecPct    int     `json:"rand_spec_pct"`
	SpecRes    int     `json:"rand_spec_res"`
	ParetoH    float64 `json:"rand_pareto_h"`
	ZipfianExp float64 `json:"rand_zipfian_exp"`
	Seed       uint64  `json:"rand_seed"`
}

// Defaults are sysbench 1.0.20's (zipfian's exponent is sysbench 1.1's).
func Defaults() Options {
	return Options{Type: "special", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}
}

// Types lists the supported distributions.
var Types = []string{"uniform", "gaussian", "special", "pareto", "zipfian"}

// Validate checks the options the way sysbench does.
func (o Options) Validate() error {
	known := false
	for _, t := range Types {
		known = known || t == o.Type
	}
	switch {
	case !known:
		return fmt.Errorf("invalid --rand-type %q: use uniform, gaussian, special, pareto or zipfian", o.Type)
	case o.SpecIter < 1:
		return fmt.Errorf("--rand-spec-iter must be at least 1")
	case o.SpecPct < 0 || o.SpecPct > 100:
		return fmt.Errorf("--rand-spec-pct must be between 0 and 100")
	case o.SpecRes < 0 || o.SpecRes >= 100:
		return fmt.Errorf("--rand-spec-res must be between 0 and 99")
	case o.ParetoH <= 0 || o.ParetoH >= 1:
		return fmt.Errorf("--rand-pareto-h must be between 0 and 1 (exclusive)")
	case o.ZipfianExp < 0:
		return fmt.Errorf("--rand-zipfian-exp must be >= 0")
	}
	return nil
}

// Source draws numbers for one worker.
type Source struct {
	rng *rand.Rand
	// pcg is rng's state; mark a copy of it, so a transaction can be
	// drawn again exactly (a retry with the same input).
	pcg          *rand.PCG
	mark         rand.PCG
	dist         int
	iter         int
	iterMult     float64
	pctMult      float64
	pct2Mult     float64
	resMult      float64
	paretoPower  float64
	zipfExp      float64
	zipfS        float64
	zipfHIntegX1 float64
}

const (
	distUniform = iota
	distGaussian
	distSpecial
	distPareto
	distZipfian
)

// New returns a source seeded from seed and stream (the worker number), so
// workers draw independent sequences and a fixed --rand-seed repeats a run.
func New(o Options, stream uint64) *Source {
	seed := o.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	pcg := rand.NewPCG(seed, stream*0x9E3779B97F4A7C15+1)
	s := &Source{
		rng:         rand.New(pcg),
		pcg:         pcg,
		iter:        o.SpecIter,
		iterMult:    1 / float64(o.SpecIter),
		pctMult:     float64(o.SpecPct) / 100,
		pct2Mult:    float64(o.SpecPct) / 200,
		resMult:     100 / (100 - float64(o.SpecRes)),
		paretoPower: math.Log(o.ParetoH) / math.Log(1-o.ParetoH),
		zipfExp:     o.ZipfianExp,
	}
	s.zipfS = 2 - hIntegralInverse(hIntegral(2.5, s.zipfExp)-h(2, s.zipfExp), s.zipfExp)
	s.zipfHIntegX1 = hIntegral(1.5, s.zipfExp) - 1
	switch o.Type {
	case "uniform":
		s.dist = distUniform
	case "gaussian":
		s.dist = distGaussian
	case "pareto":
		s.dist = distPareto
	case "zipfian":
		s.dist = distZipfian
	default:
		s.dist = distSpecial
	}
	return s
}

// Mark remembers the generator's state; Rewind returns to it, so the
// draws since Mark repeat.
func (s *Source) Mark() { s.mark = *s.pcg }

// Rewind returns to the state Mark remembered.
func (s *Source) Rewind() { *s.pcg = s.mark }

// Default draws from [a, b] with the configured distribution (sysbench.rand.default).
func (s *Source) Default(a, b uint32) uint32 {
	switch s.dist {
	case distUniform:
		return s.Uniform(a, b)
	case distGaussian:
		return s.Gaussian(a, b)
	case distPareto:
		return s.Pareto(a, b)
	case distZipfian:
		return s.Zipfian(a, b)
	}
	return s.Special(a, b)
}

// Uniform draws uniformly from [a, b].
func (s *Source) Uniform(a, b uint32) uint32 {
	return a + uint32(s.rng.Float64()*float64(b-a+1))
}

// Gaussian averages SpecIter uniform draws over [a, b].
func (s *Source) Gaussian(a, b uint32) uint32 {
	t := float64(b - a + 1)
	sum := 0.0
	for i := 0; i < s.iter; i++ {
		sum += s.rng.Float64() * t
	}
	return a + uint32(sum*s.iterMult)
}

// Special is sysbench's default: most draws are gaussian over [a, b], and
// SpecRes percent hit a hot SpecPct percent in the middle of the range.
func (s *Source) Special(a, b uint32) uint32 {
	t := float64(b - a)
	rnd := s.rng.Float64()
	if rnd*t*s.resMult < t {
		sum := 0.0
		for i := 0; i < s.iter; i++ {
			sum += s.rng.Float64()
		}
		return a + uint32(sum*t*s.iterMult)
	}
	d := t * s.pctMult
	res := rnd*(d+1) + t/2 - t*s.pct2Mult
	return a + uint32(res)
}

// Pareto follows sysbench: a + (b-a+1) * U^power with power from --rand-pareto-h.
func (s *Source) Pareto(a, b uint32) uint32 {
	return a + uint32(float64(b-a+1)*math.Pow(s.rng.Float64(), s.paretoPower))
}

// Zipfian uses rejection-inversion sampling (Hörmann and Derflinger 1996),
// as sysbench 1.1 and Apache Commons RNG do.
func (s *Source) Zipfian(a, b uint32) uint32 {
	return a + s.zipfInt(b-a+1) - 1
}

func (s *Source) zipfInt(n uint32) uint32 {
	e := s.zipfExp
	hN := hIntegral(float64(n)+0.5, e)
	for {
		u := hN + s.rng.Float64()*(s.zipfHIntegX1-hN)
		x := hIntegralInverse(u, e)
		k := uint32(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= s.zipfS || u >= hIntegral(float64(k)+0.5, e)-h(float64(k), e) {
			return k
		}
	}
}

func hIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return expm1OverX((1-e)*logX) * logX
}

func h(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

func hIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1
	}
	return math.Exp(log1pOverX(t) * x)
}

func log1pOverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

func expm1OverX(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}

// FillTemplate writes sysbench.rand.string(template) into dst: '#' becomes a
// random digit, '@' a random lower-case letter, anything else is copied.
func (s *Source) FillTemplate(dst []byte, template string) []byte {
	dst = dst[:0]
	for i := 0; i < len(template); i++ {
		switch template[i] {
		case '#':
			dst = append(dst, byte(s.Uniform('0', '9')))
		case '@':
			dst = append(dst, byte(s.Uniform('a', 'z')))
		default:
			dst = append(dst, template[i])
		}
	}
	return dst
}
