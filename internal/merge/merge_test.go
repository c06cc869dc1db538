package merge

import (
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/result"
)

// gen is generator i of n with latencies lat (microseconds) and intervals.
func gen(t *testing.T, i, n int, lat []int64, ivs []result.Interval) *result.Result {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range lat {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return &result.Result{
		Target: "postgres://sbtest@db:5432/sbtest", Engine: result.Engine{Kind: "postgres", Version: "PostgreSQL 15"},
		Variant:   result.Variant{Name: "tls", TLS: "verify-full", Verified: result.Verification{OK: true, TLS: result.TLSProof{Source: "pg_stat_ssl", Connections: 2, TLSConnections: 2, Versions: map[string]int{"TLSv1.3": 2}}}},
		Workload:  result.Workload{Name: "oltp_read_write", Params: map[string]any{"tables": 4}},
		Generator: &result.Generator{Index: i, Count: n, Threads: 2, StartAt: "2026-11-24T10:00:00Z"},
		Threads:   2, DurationS: 10, TPS: float64(len(lat)) / 10,
		Totals:    result.Totals{Transactions: int64(len(lat)), Failed: map[string]int64{"deadlock": 1}},
		Histogram: string(enc), Intervals: ivs,
		CPU:      result.CPU{ClientS: 1.5, ClientUtilPct: 7.5},
		Fairness: result.Fairness{EventsAvg: float64(len(lat)) / 2},
	}
}

// Histograms are added: the merged p99 is the p99 of all latencies, which
// averaging the generators' p99s would not give.
func TestMergeAddsHistogramsAndCounts(t *testing.T) {
	fast := make([]int64, 990)
	for i := range fast {
		fast[i] = 1000
	}
	slow := make([]int64, 10)
	for i := range slow {
		slow[i] = 50000
	}
	rs := []*result.Result{gen(t, 1, 2, slow, nil), gen(t, 0, 2, fast, nil)}
	m, err := Results(rs)
	if err != nil {
		t.Fatal(err)
	}
	if m.Totals.Transactions != 1000 || m.Threads != 4 || m.Totals.Failed["deadlock"] != 2 || m.TPS != 100 || m.CPU.ClientS != 3 {
		t.Errorf("totals %+v threads %d tps %v client %v", m.Totals, m.Threads, m.TPS, m.CPU.ClientS)
	}
	// 990 at 1 ms and 10 at 50 ms: the 99th percentile is still 1 ms; the
	// mean of the two generators' p99s would be 25.5 ms.
	if m.LatencyMs.P99 > 1.01 || m.LatencyMs.Max < 49.9 || m.LatencyMs.P999 < 49.9 {
		t.Errorf("merged latency %+v", m.LatencyMs)
	}
	if m.Generator != nil || len(m.Generators) != 2 || m.Generators[0].Index != 0 || m.Generators[1].Transactions != 10 {
		t.Errorf("generators %+v", m.Generators)
	}
	if m.Variant.Verified.TLS.Connections != 4 || m.Variant.Verified.TLS.Versions["TLSv1.3"] != 4 {
		t.Errorf("TLS proof %+v", m.Variant.Verified.TLS)
	}
}

// Interval series add up on the common grid; an interval only one
// generator reached stays its own.
func TestMergeSumsIntervalsOnTheTimeGrid(t *testing.T) {
	a := []result.Interval{{TS: 1, TPS: 100, P95Ms: 2}, {TS: 2, TPS: 110, P95Ms: 3}, {TS: 2.5, TPS: 90, P95Ms: 1}}
	b := []result.Interval{{TS: 1.0004, TPS: 50, P95Ms: 5}, {TS: 1.9998, TPS: 60, P95Ms: 1}}
	m, err := Results([]*result.Result{gen(t, 0, 2, []int64{1}, a), gen(t, 1, 2, []int64{1}, b)})
	if err != nil {
		t.Fatal(err)
	}
	want := []result.Interval{{TS: 1, TPS: 150, P95Ms: 5}, {TS: 2, TPS: 170, P95Ms: 3}, {TS: 2.5, TPS: 90, P95Ms: 1}}
	if len(m.Intervals) != len(want) {
		t.Fatalf("intervals %+v", m.Intervals)
	}
	for i, w := range want {
		if g := m.Intervals[i]; g.TS != w.TS || g.TPS != w.TPS || g.P95Ms != w.P95Ms {
			t.Errorf("interval %d: %+v, want %+v", i, g, w)
		}
	}
}

// Results of different variants, servers or runs are refused, naming what
// differs; so is an incomplete set.
func TestMergeRefusesWhatDiffers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(r *result.Result)
		want   string
	}{
		{"plain among tls", func(r *result.Result) {
			r.Variant.Name, r.Variant.TLS, r.Variant.Verified.TLS.TLSConnections, r.Variant.Verified.TLS.Versions = "plain", "disable", 0, nil
		}, "variant"},
		{"another server", func(r *result.Result) { r.Engine.Version = "PostgreSQL 16" }, "server"},
		{"another start", func(r *result.Result) { r.Generator.StartAt = "2026-11-24T10:05:00Z" }, "start"},
		{"not proven", func(r *result.Result) { r.Variant.Verified.OK = false }, "did not prove"},
		{"a generator twice", func(r *result.Result) { r.Generator.Index = 0 }, "twice"},
		{"another count", func(r *result.Result) { r.Generator.Count = 3 }, "one of 3"},
	} {
		rs := []*result.Result{gen(t, 0, 2, []int64{1}, nil), gen(t, 1, 2, []int64{1}, nil)}
		tc.mutate(rs[1])
		if _, err := Results(rs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it refused naming %q", tc.name, err, tc.want)
		}
	}
	if _, err := Results([]*result.Result{gen(t, 0, 3, []int64{1}, nil), gen(t, 2, 3, []int64{1}, nil)}); err == nil || !strings.Contains(err.Error(), "generator 1 missing") {
		t.Errorf("incomplete set: %v", err)
	}
}

// Thread fairness pools exactly: the merged mean and spread are those of
// all threads together; timed parts add counts and weight their means.
func TestMergePoolsFairnessAndParts(t *testing.T) {
	a, b := gen(t, 0, 2, []int64{1}, nil), gen(t, 1, 2, []int64{1}, nil)
	// Threads of a: 10 and 20 events; of b: 30 and 40 (population sd 5 each).
	a.Fairness = result.Fairness{EventsAvg: 15, EventsStddev: 5}
	b.Fairness = result.Fairness{EventsAvg: 35, EventsStddev: 5}
	a.Parts = map[string]result.PartLatency{"connect": {N: 10, Mean: 1, P99: 2}}
	b.Parts = map[string]result.PartLatency{"connect": {N: 30, Mean: 3, P99: 5}}
	m, err := Results([]*result.Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	// 10, 20, 30, 40: mean 25, population sd sqrt(125) = 11.18.
	if m.Fairness.EventsAvg != 25 || m.Fairness.EventsStddev != 11.18 {
		t.Errorf("pooled fairness %+v", m.Fairness)
	}
	if it := m.Parts["connect"]; it.N != 40 || it.Mean != 2.5 || it.P99 != 5 {
		t.Errorf("merged part %+v", it)
	}
}
