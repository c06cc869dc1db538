package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/schematest"
	"github.com/encbench/encbench/internal/suite"
)

func TestComparisonPlacesThePublishedFigure(t *testing.T) {
	for _, c := range []struct {
		pub, lo, hi float64
		want        Comparison
	}{
		{8.79, 2.0, 9.0, CompAgrees}, {8.79, 8.79, 12, CompAgrees}, {8.79, 1.0, 5.0, CompLower}, {8.79, 9.5, 14, CompHigher},
	} {
		if got := compare(c.pub, Span{Value: (c.lo + c.hi) / 2, Low: c.lo, High: c.hi}); got != c.want {
			t.Errorf("published %v against [%v, %v]: %s, want %s", c.pub, c.lo, c.hi, got, c.want)
		}
	}
}

// TestBoundHoldsUnlessTheWholeIntervalLiesAbove: R1's "at most 20%" is
// kept by a loss whose interval reaches below it, however high its mean,
// and broken only when the interval's low end is above it.
func TestBoundHoldsUnlessTheWholeIntervalLiesAbove(t *testing.T) {
	for _, c := range []struct {
		name string
		loss Span
		want Comparison
	}{
		{"far below", Span{3, 1, 5}, CompWithinBound},
		{"mean above, interval reaches below", Span{22, 18, 26}, CompWithinBound},
		{"low end on the bound", Span{24, 20, 28}, CompWithinBound},
		{"whole interval above", Span{24, 20.5, 28}, CompAboveBound},
	} {
		if got := compareBound(20, c.loss); got != c.want {
			t.Errorf("%s: %v against at most 20: %s, want %s", c.name, c.loss, got, c.want)
		}
	}
}

func ms(x float64) *float64 { return &x }

// TestLabelsAreGivenOnlyByTheirTests: each cause has a case where it
// holds and cases where it must not be given.
func TestLabelsAreGivenOnlyByTheirTests(t *testing.T) {
	// The report: 8 threads at 260.55 TPS plain, 30.70 ms per transaction;
	// its layer adds 2.96 ms (8.79% loss).
	base := func(projectedBase float64) Times {
		return Times{Report: ms(30.70), Measured: &Span{13.4, 13.3, 13.5}, Projected: &Span{projectedBase, projectedBase * 0.99, projectedBase * 1.01}}
	}
	added := func(projected float64) Times {
		return Times{Report: ms(2.96), Projected: &Span{projected, projected * 0.9, projected * 1.1}}
	}
	for _, c := range []struct {
		name string
		e    Evidence
		want Label
	}{
		{"R3 at 8 terminals: equal losses, base times 2.3x apart: not the layer", Evidence{Published: 8.79, Measured: Span{8.79 + 6, 13, 16},
			Projected: &Span{8.8, 7, 10.5}, Base: base(13.4), Added: added(1.29)}, LabelUnaccounted},
		{"the same, base times within 1.5x: the setting", Evidence{Published: 8.79, Measured: Span{14.5, 13, 16},
			Projected: &Span{8.8, 7, 10.5}, Base: base(25), Added: added(2.4)}, LabelSetting},
		{"projection agrees but moved less than the half-width: not the setting", Evidence{Published: 8.79, Measured: Span{11, 9.2, 12.8},
			Projected: &Span{9.5, 7, 12}, Base: base(25), Added: added(2.6)}, LabelUnaccounted},
		{"projection moved but does not agree: not the setting", Evidence{Published: 8.79, Measured: Span{20, 19, 21},
			Projected: &Span{12, 11, 13}, Base: base(25), Added: added(2.6)}, LabelUnaccounted},
		{"base within 1.5x, the report's layer adds 3x encbench's: the layer", Evidence{Published: 22, Measured: Span{8, 7, 9},
			Projected: &Span{8.5, 7.5, 9.5}, Base: base(28), Added: added(0.9)}, LabelLayer},
		{"added times within 1.5x: not the layer", Evidence{Published: 22, Measured: Span{8, 7, 9},
			Projected: &Span{8.5, 7.5, 9.5}, Base: base(28), Added: added(2.2)}, LabelUnaccounted},
		{"base 1.6x apart, layer 3x: not the layer", Evidence{Published: 22, Measured: Span{8, 7, 9},
			Projected: &Span{8.5, 7.5, 9.5}, Base: base(50), Added: added(0.9)}, LabelUnaccounted},
		{"no projection", Evidence{Published: 22, Measured: Span{8, 7, 9}, Base: Times{Report: ms(30)}, Added: added(1)}, LabelUnaccounted},
		{"no report TPS", Evidence{Published: 22, Measured: Span{8, 7, 9}, Projected: &Span{21, 20, 23}, Base: Times{Projected: &Span{30, 29, 31}}}, LabelUnaccounted},
		{"a different measurement", Evidence{Published: 5.4, Measured: Span{2, 1.9, 2.1}, Projected: &Span{2, 1.9, 2.1},
			Base: base(28), Added: added(0.9), Different: "pymongo connects lazily"}, LabelDifferent},
	} {
		if got, _ := labelOf(c.e); got != c.want {
			ratio := "none"
			if r := c.e.BaseTimeRatio(); r != nil {
				ratio = fmt.Sprintf("%.2f", *r)
			}
			t.Errorf("%s: %s, want %s (base ratio %s)", c.name, got, c.want, ratio)
		}
	}
}

// TestPublishedLossesOnTheStandIn: each published loss is judged once on
// the stand-in, with the report's base time by Little's law beside
// encbench's, and counted; the other target is context only.
func TestPublishedLossesOnTheStandIn(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 4; rep++ {
		j := float64(rep)
		b, v := costly("plain", rep, 50, 900, 20, 40, 97), costly("tls", rep, 71, 906+j, 20, 45, 97)
		setTPS(b, 1000+j/10)
		setTPS(v, 990-j/10)
		rs = append(rs, b, v)
	}
	rows := Aggregate(rs, "plain", &Order{})
	tls := findRow(rows, "mariadb", "oltp_read_only", "tls", 8)
	if tls == nil || tls.Loss == nil {
		t.Fatal("no tls loss")
	}
	l := english(t)
	order := Order{Targets: []string{"mariadb"}, Workloads: []string{"oltp_read_only"}, Variants: []string{"plain", "tls"}}
	for _, tc := range []struct {
		name  string
		pub   float64
		tpsOn float64
		want  Comparison
		label Label
	}{
		{"inside", tls.Loss.Pct, 990, CompAgrees, ""},
		// 8 threads at 1000 TPS: the report's plain takes 8 ms like
		// encbench's; its layer adds 72 ms against encbench's 0.08.
		{"enclave", tls.Loss.Pct + 40, 100, CompLower, LabelLayer},
	} {
		ref := &suite.Reference{Report: "R9", Workload: "oltp_read_only", Loss: map[string]map[int]float64{"tls": {8: tc.pub}},
			StandIn:     &suite.StandIn{Engine: "mariadb"},
			TPS:         map[string]map[string]map[int]float64{"oltp_read_only": {"plain": {8: 1000}, "tls": {8: tc.tpsOn}}},
			Environment: &suite.ReferenceEnvironment{ClientCores: 1, ServerCores: 1}}
		e := newExplainer(l, ref, rows, "plain")
		ps := e.publishedLosses(ref, standInTarget(rows, ref), "plain")
		if len(ps) != 1 {
			t.Fatalf("%s: %d published numbers, want 1", tc.name, len(ps))
		}
		p := ps[0]
		if p.Comparison != tc.want || p.Label != tc.label || p.BaseMs.Report == nil || *p.BaseMs.Report != 8 || p.Limit != LimitServerCPU {
			t.Errorf("%s: %s / %s, base %v, limit %s (%s)", tc.name, p.Comparison, p.Label, p.BaseMs.Report, p.Limit, p.Reason)
		}
		if c := countPublished(ps); c.Numbers != 1 || c.Comparison[tc.want] != 1 {
			t.Errorf("%s: counted %+v", tc.name, c)
		}
		if ctx := lossContext(l, ref, e, order, "plain"); len(ctx.Rows) != 1 {
			t.Errorf("%s: context rows %v", tc.name, ctx.Rows)
		}
		// analysis.json carries them as its schema says.
		doc, err := json.Marshal(Analysis{Schema: AnalysisSchema, Baseline: "plain", Published: ps})
		if err != nil {
			t.Fatal(err)
		}
		if err := schematest.Check(t, schematest.Compile(t, "analysis.schema.json"), doc); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestPartsOnTheStandIn: R2's pairs are compared as ratios on the
// stand-in's variant; a part encbench does not time as the report did is
// a different measurement, and a ratio that only the report's round trip
// reaches, with the base time near the report's, is the setting.
func TestPartsOnTheStandIn(t *testing.T) {
	l := english(t)
	ref := &suite.Reference{Report: "R2", Workload: "connect", PartsVariants: []string{"tls1.2", "tls1.3"},
		StandIn:   &suite.StandIn{Engine: "mongodb", Variant: "tls1.2"},
		Different: map[string]string{"connect": "a lazy client"},
		Parts: map[string]map[string]float64{"connect": {"off": 2.0, "on": 10.0}, "first_query": {"off": 2.4, "on": 4.8},
			"reused_query": {"off": 0.75, "on": 0.76}},
		Environment: &suite.ReferenceEnvironment{RTTMs: 0.5}}
	mk := func(engine, label string, rtt float64, v string, rep int, connect, first, reused float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 1, Target: engine + "://127.0.0.1:1/x"}
		r.Engine.Kind = engine
		r.Workload = result.Workload{Name: "connect", Label: label}
		if rtt > 0 {
			r.Network = &result.Network{RTTMs: rtt}
		}
		r.Variant.Name = v
		r.Parts = map[string]result.PartLatency{"connect": {N: 100, Mean: connect}, "first_query": {N: 100, Mean: first}, "reused_query": {N: 100, Mean: reused}}
		return r
	}
	var rs []*result.Result
	for rep, j := range []float64{0.99, 1.0, 1.01, 1.0} {
		for _, engine := range []string{"mongodb", "postgres"} {
			rs = append(rs, mk(engine, "connect", 0, "plain", rep+1, 0.5*j, 0.2*j, 0.05*j), mk(engine, "connect", 0, "tls1.2", rep+1, 1.5*j, 0.25*j, 0.06*j),
				mk(engine, "connect", 0, "tls1.3", rep+1, 1.2*j, 0.25*j, 0.06*j),
				mk(engine, "connect_rtt0.5ms", 0.5, "plain", rep+1, 2.5*j, 2.2*j, 0.6*j), mk(engine, "connect_rtt0.5ms", 0.5, "tls1.2", rep+1, 5*j, 4.4*j*j, 0.61*j),
				mk(engine, "connect_rtt0.5ms", 0.5, "tls1.3", rep+1, 4*j, 4.4*j, 0.61*j))
		}
	}
	order := Order{Targets: []string{"mongodb", "postgres"}, Workloads: []string{"connect", "connect_rtt0.5ms"}, Variants: []string{"plain", "tls1.2", "tls1.3"}}
	a := anatomyOf(ref, rs, "plain", order)
	ps := publishedParts(l, ref, a, nil, "mongodb")
	if len(ps) != 3 {
		t.Fatalf("%d published numbers, want 3 (one per published pair)", len(ps))
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.Figure[:strings.Index(p.Figure, " ")]] = string(p.Comparison) + "/" + string(p.Label)
	}
	want := map[string]string{
		// 3.0x here against 5.0x published: a lazy client.
		"connect": "lower/different_measurement",
		// 1.25x here, 2.0x at 0.5 ms as published, with a base of 2.2 ms
		// against the report's 2.4.
		"first_query":  "lower/setting",
		"reused_query": "higher/not_accounted_for",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	// Context: every target, network and variant, uncounted.
	if ctx := partsContext(l, ref, a, order); len(ctx.Rows) != 2*2*3*2 {
		t.Errorf("%d context rows, want 24", len(ctx.Rows))
	}
}

// TestPartsOnTheTopology: a part the reference's topology times as the
// report did is judged on that target, with no "different measurement";
// the parts that still differ say why in the topology's words; a suite
// whose topology target did not run keeps the stand-in and its reasons.
func TestPartsOnTheTopology(t *testing.T) {
	l := english(t)
	ref := &suite.Reference{Report: "R2", Workload: "connect", PartsVariants: []string{"tls1.2"},
		StandIn:   &suite.StandIn{Engine: "mongodb", Variant: "tls1.2"},
		Different: map[string]string{"connect": "a lazy client", "first_query": "discovery"},
		Topology: &suite.Topology{Target: "postgres-3node", Parts: []string{"connect_first_query"}, Why: "a replica set",
			StillDifferent: map[string]string{"connect": "the discovery falls in the connect"}},
		Parts: map[string]map[string]float64{"connect": {"off": 3.7, "on": 19.85}, "first_query": {"off": 20.7, "on": 43.6},
			"connect_first_query": {"off": 24.4, "on": 63.4}}}
	mk := func(target, v string, rep int, connect, first float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 1, Target: target + "://127.0.0.1:1/x"}
		r.Engine.Kind = target
		r.Workload = result.Workload{Name: "connect", Label: "connect"}
		r.Variant.Name = v
		r.Parts = map[string]result.PartLatency{"connect": {N: 100, Mean: connect}, "first_query": {N: 100, Mean: first},
			"connect_first_query": {N: 100, Mean: connect + first}}
		return r
	}
	judge := func(targets []string) map[string]Published {
		var rs []*result.Result
		for rep, j := range []float64{0.99, 1.0, 1.01, 1.0} {
			for _, tg := range targets {
				rs = append(rs, mk(tg, "plain", rep+1, 9*j, 0.5*j), mk(tg, "tls1.2", rep+1, 12*j, 0.52*j))
			}
		}
		order := Order{Targets: targets, Workloads: []string{"connect"}, Variants: []string{"plain", "tls1.2"}}
		out := map[string]Published{}
		for _, p := range publishedParts(l, ref, anatomyOf(ref, rs, "plain", order), nil, "mongodb") {
			out[p.Figure[:strings.Index(p.Figure, " ")]] = p
		}
		return out
	}
	with := judge([]string{"mongodb", "postgres-3node"})
	if p := with["connect_first_query"]; p.Engine != "postgres-3node" || p.Label == LabelDifferent || p.Measured == nil {
		t.Errorf("connect + first query with the topology: %+v", p)
	}
	if p := with["connect"]; p.Engine != "mongodb" || p.Label != LabelDifferent || !strings.Contains(p.Reason, "falls in the connect") {
		t.Errorf("connect with the topology: engine %s, label %s, %q", p.Engine, p.Label, p.Reason)
	}
	if p := with["first_query"]; p.Label != LabelDifferent || !strings.Contains(p.Reason, "discovery") {
		t.Errorf("first query with the topology: label %s, %q", p.Label, p.Reason)
	}
	without := judge([]string{"mongodb"})
	if p := without["connect_first_query"]; p.Engine != "mongodb" {
		t.Errorf("connect + first query without the topology judged on %s", p.Engine)
	}
	if p := without["connect"]; !strings.Contains(p.Reason, "lazy client") {
		t.Errorf("connect without the topology: %q", p.Reason)
	}
}

// TestEverySeedSuiteSaysHowItsMethodDeparts: each seed suite lists its
// differences in method from its report, in every language, with the
// same number of lines.
func TestEverySeedSuiteSaysHowItsMethodDeparts(t *testing.T) {
	for _, name := range suite.SeedSuites() {
		n := -1
		for _, code := range locale.Codes() {
			l, err := locale.Get(code)
			if err != nil {
				t.Fatal(err)
			}
			lines := methodLines(l, name)
			if len(lines) < 3 || n >= 0 && len(lines) != n {
				t.Errorf("%s in %s: %d lines of method differences", name, code, len(lines))
			}
			n = len(lines)
		}
	}
}

// TestReusedQueryComesFromItsOwnPhase: where the suite ran the reused
// query in a phase of its own, its row is that phase's, and the connect
// cycle's own reused query is not compared.
func TestReusedQueryComesFromItsOwnPhase(t *testing.T) {
	l := english(t)
	ref := &suite.Reference{Workload: "connect", PartsVariants: []string{"tls1.3"},
		Parts: map[string]map[string]float64{"connect": {"off": 3.7009, "on": 19.8515}, "reused_query": {"off": 0.7506, "on": 0.7643}}}
	mk := func(label, phase, v string, rep int, reused float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 1, Target: "postgres://127.0.0.1:5432/sbtest"}
		r.Engine.Kind = "postgres"
		r.Workload = result.Workload{Name: "connect", Label: label, Params: map[string]any{"connect_phase": phase}}
		r.Variant.Name = v
		r.Parts = map[string]result.PartLatency{"reused_query": {N: 100, Mean: reused}}
		if phase == "both" {
			r.Parts["connect"] = result.PartLatency{N: 100, Mean: 1}
		}
		return r
	}
	var rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		rs = append(rs, mk("connect", "both", "plain", rep, 0.05), mk("connect", "both", "tls1.3", rep, 0.06),
			mk("connect_reused", "reused", "plain", rep, 0.05), mk("connect_reused", "reused", "tls1.3", rep, 0.051))
	}
	order := Order{Targets: []string{targetOf(rs[0])}, Workloads: []string{"connect", "connect_reused"}, Variants: []string{"plain", "tls1.3"}}
	tb := partsContext(l, ref, anatomyOf(ref, rs, "plain", order), order)
	var got []string
	for _, row := range tb.Rows {
		got = append(got, row[1].S+" "+row[2].S)
	}
	if want := []string{"connect connect", "connect_reused reused_query"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}
