package suite

import (
	"fmt"
	"slices"

	"github.com/encbench/encbench/internal/result"
)

// Disturbance is when a repetition counts as disturbed and runs again, at
// most Reruns times per cell: foreign CPU (machine busy time that was
// neither encbench nor the measured server) or hypervisor steal above
// these shares of the machine's CPU time, or a stall: a reporting
// interval (an interleaved turn) under StallPct of its run's median one.
type Disturbance struct {
	ForeignPct float64 `yaml:"foreign_pct" json:"foreign_pct"`
	StealPct   float64 `yaml:"steal_pct" json:"steal_pct"`
	StallPct   float64 `yaml:"stall_pct" json:"stall_pct"`
	Reruns     int     `yaml:"reruns" json:"reruns"`
}

// DefaultDisturbance: 10% of a 2-core machine is a fifth of the server's
// CPU; 5% steal is more than a quiet VM shows; a turn at under a quarter of
// its run's median lost most of it to a standstill, where the dips of load
// seen on a 2-core VM go to 0.6-0.8 (and the standstills seen there hit
// two servers in the same block at once, with no foreign CPU or steal).
var defaultDisturbance = Disturbance{ForeignPct: 10, StealPct: 5, StallPct: 25, Reruns: 2}

// Disturb is the suite's disturbance rule, its defaults filled in.
func (s Suite) Disturb() Disturbance {
	if s.Disturbance == nil {
		return defaultDisturbance
	}
	d := *s.Disturbance
	if d.StallPct == 0 {
		d.StallPct = defaultDisturbance.StallPct
	}
	return d
}

// Why says why a result was disturbed beyond the rule (a Discard
// reason), or "".
func (d Disturbance) Why(r *result.Result) string {
	c := r.CPU
	if c.ForeignUtilPct != nil && *c.ForeignUtilPct > d.ForeignPct {
		return result.Discard(r.Variant.Name, result.CauseForeign, fmt.Sprintf("%.1f%% of the machine (limit %.0f%%)", *c.ForeignUtilPct, d.ForeignPct))
	}
	if c.StealPct != nil && *c.StealPct > d.StealPct {
		return result.Discard(r.Variant.Name, result.CauseSteal, fmt.Sprintf("%.1f%% of the machine (limit %.0f%%)", *c.StealPct, d.StealPct))
	}
	if detail, ok := r.Stall(d.StallPct); ok {
		return result.Discard(r.Variant.Name, result.CauseStall, detail)
	}
	return ""
}

// Repeat measures until no result of a measurement is disturbed beyond
// the rule, at most Reruns more times, and keeps the last; each run
// learns why the earlier ones were discarded, and the count of reruns
// comes back. One disturbed cell of an interleaved block runs the whole
// block again, since its cells were measured together; a run that failed
// or was cut short is not repeated.
func (d Disturbance) Repeat(run func(discarded []string) ([]*result.Result, error)) ([]*result.Result, int, error) {
	var discarded []string
	for {
		rs, err := run(discarded)
		if err != nil || len(discarded) >= d.Reruns || slices.ContainsFunc(rs, func(r *result.Result) bool { return r == nil || r.Partial }) {
			return rs, len(discarded), err
		}
		why := ""
		for _, r := range rs {
			if why = d.Why(r); why != "" {
				break
			}
		}
		if why == "" {
			return rs, len(discarded), nil
		}
		discarded = append(discarded, why)
	}
}

// RepeatOne is Repeat for a cell measured alone.
func (d Disturbance) RepeatOne(run func(discarded []string) (*result.Result, error)) (*result.Result, int, error) {
	rs, reruns, err := d.Repeat(func(discarded []string) ([]*result.Result, error) {
		res, err := run(discarded)
		return []*result.Result{res}, err
	})
	return rs[0], reruns, err
}
