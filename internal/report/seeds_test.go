package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

func TestVerdictPlacesThePublishedFigure(t *testing.T) {
	for _, c := range []struct {
		pub, lo, hi float64
		want        Verdict
	}{
		{8.79, 2.0, 9.0, Agrees}, {8.79, 8.79, 12, Agrees}, {8.79, 1.0, 5.0, Lower}, {8.79, 9.5, 14, Higher},
	} {
		if got := verdictOf(c.pub, c.lo, c.hi); got != c.want {
			t.Errorf("published %v against [%v, %v]: %s, want %s", c.pub, c.lo, c.hi, got, c.want)
		}
	}
}

// R2's anatomy is compared as ratios: a TLS connect 5x slower than plain
// in every repetition agrees with a published 5.36x only if the interval
// holds it; the reused query's 1.02x does.
func TestPartsVerdictsCompareRatios(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	ref := &suite.Reference{Workload: "connect", PartsVariants: []string{"tls1.3"},
		Parts: map[string]map[string]float64{"connect": {"off": 3.7009, "on": 19.8515}, "reused_query": {"off": 0.7506, "on": 0.7643}}}
	mk := func(v string, rep int, connect, reused float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 1, Target: "postgres://127.0.0.1:5432/sbtest"}
		r.Engine.Kind = "postgres"
		r.Workload.Name = "connect"
		r.Variant.Name = v
		r.Parts = map[string]result.PartLatency{"connect": {N: 100, Mean: connect}, "reused_query": {N: 100, Mean: reused}}
		return r
	}
	var rs []*result.Result
	for rep, jitter := range []float64{0.99, 1.0, 1.01, 1.0} {
		rs = append(rs, mk("plain", rep+1, 1.0*jitter, 0.050), mk("tls1.3", rep+1, 2.5*jitter, 0.051*jitter))
	}
	order := Order{Targets: []string{targetOf(rs[0])}, Workloads: []string{workloadOf(rs[0])}, Variants: []string{"plain", "tls1.3"}}
	count := map[Verdict]int{}
	tb := partsVerdicts(l, ref, rs, "plain", order, count)
	if len(tb.Rows) != 2 {
		t.Fatalf("rows %v", tb.Rows)
	}
	connect, reused := tb.Rows[0], tb.Rows[1]
	if connect[2].S != "connect" || !strings.HasPrefix(connect[7].S, "2.50") || connect[8].S != "lower" {
		t.Errorf("connect row %v: want ratio 2.50 and lower than 5.36", connect)
	}
	if reused[2].S != "reused_query" || reused[8].S != "agrees" {
		t.Errorf("reused row %v: want agrees with 1.02", reused)
	}
	if count[Lower] != 1 || count[Agrees] != 1 {
		t.Errorf("counted %v", count)
	}
}
