package report

import (
	"slices"
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
	// R2's TLS added 16.15 ms to a connect, encbench's 1.5: the layers
	// differ, and both times are shown.
	if connect[2].S != "connect" || !strings.HasPrefix(connect[7].S, "2.50") || connect[8].S != "+16.151" ||
		!strings.HasPrefix(connect[9].S, "+1.500") || connect[10].S != "differs in the layer (lower)" {
		t.Errorf("connect row %v: want ratio 2.50, lower than 5.36, added 16.151 against 1.500", connect)
	}
	if reused[2].S != "reused_query" || reused[10].S != "agrees" {
		t.Errorf("reused row %v: want agrees with 1.02", reused)
	}
	if count[InLayer] != 1 || count[Agrees] != 1 {
		t.Errorf("counted %v", count)
	}
}

// TestPartsExplainedByTheReportsRoundTrip: a connect ratio that loopback
// does not reach but the emulated network at the round trip R2's
// environment assumes does is explained there; one whose added time is
// near encbench's but whose ratio is not is unexplained.
func TestPartsExplainedByTheReportsRoundTrip(t *testing.T) {
	l := english(t)
	ref := &suite.Reference{Workload: "connect", PartsVariants: []string{"tls1.3"},
		Parts:       map[string]map[string]float64{"connect": {"off": 2.0, "on": 4.0}, "first_query": {"off": 1.0, "on": 1.6}},
		Environment: &suite.ReferenceEnvironment{RTTMs: 0.5}}
	mk := func(label string, rtt float64, v string, rep int, connect, first float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 1, Target: "postgres://127.0.0.1:5432/sbtest"}
		r.Engine.Kind = "postgres"
		r.Workload = result.Workload{Name: "connect", Label: label}
		if rtt > 0 {
			r.Network = &result.Network{RTTMs: rtt}
		}
		r.Variant.Name = v
		r.Parts = map[string]result.PartLatency{"connect": {N: 100, Mean: connect}, "first_query": {N: 100, Mean: first}}
		return r
	}
	var rs []*result.Result
	for rep, j := range []float64{0.99, 1.0, 1.01, 1.0} {
		rs = append(rs, mk("connect", 0, "plain", rep+1, 0.5*j, 0.1*j), mk("connect", 0, "tls1.3", rep+1, 1.25*j, 0.2*j),
			mk("connect_rtt0.5ms", 0.5, "plain", rep+1, 2.5*j, 0.6*j), mk("connect_rtt0.5ms", 0.5, "tls1.3", rep+1, 5.0*j, 0.7*j))
	}
	order := Order{Targets: []string{targetOf(rs[0])}, Workloads: []string{"connect", "connect_rtt0.5ms"}, Variants: []string{"plain", "tls1.3"}}
	count := map[Verdict]int{}
	tb := partsVerdicts(l, ref, rs, "plain", order, count)
	got := map[string]string{}
	for _, row := range tb.Rows {
		got[row[1].S+" "+row[2].S] = row[10].S
	}
	want := map[string]string{
		// 2.5x here, 2.0x published, 2.0x at 0.5 ms.
		"connect connect": "explained (higher)", "connect_rtt0.5ms connect": "agrees",
		// 2.0x here, 1.17x at 0.5 ms, 1.6x published; R2's +0.6 ms
		// against encbench's +0.1 at 0.5 ms differs in the layer.
		"connect first_query": "differs in the layer (higher)", "connect_rtt0.5ms first_query": "differs in the layer (lower)",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if count[Explained] != 1 || count[Agrees] != 1 || count[InLayer] != 2 {
		t.Errorf("counted %v", count)
	}
	// A published added time near encbench's, with a ratio neither
	// network reaches, is unexplained.
	ref.Parts = map[string]map[string]float64{"first_query": {"off": 0.3, "on": 0.45}}
	count = map[Verdict]int{}
	tb = partsVerdicts(l, ref, rs, "plain", order, count)
	if count[Unexplained] != 2 {
		t.Errorf("first_query published 0.30 / 0.45 against 0.1 / 0.2 and 0.6 / 0.7: %v\n%v", count, tb.Rows)
	}
}

// TestFourVerdicts: a published loss inside encbench's interval agrees;
// one outside it but within 3 points of the projection to the report's
// setting is explained; one far off whose throughputs imply a layer that
// adds far more time per transaction than encbench's differs in the
// layer; one far off whose layer adds about what encbench's does is
// unexplained.
func TestFourVerdicts(t *testing.T) {
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
	measured := tls.Loss.Pct
	l := english(t)
	for _, tc := range []struct {
		name      string
		pub       float64
		tpsOn     float64
		want      Verdict
		wantCount Verdict
	}{
		{"inside", measured, 0, Agrees, Agrees},
		{"projected", measured + 2.5, 0, Explained, Explained},
		{"enclave", measured + 40, 100, InLayer, InLayer},
		{"same layer", measured + 40, 990, Unexplained, Unexplained},
	} {
		ref := &suite.Reference{Workload: "oltp_read_only", Loss: map[string]map[int]float64{"tls": {8: tc.pub}},
			Environment: &suite.ReferenceEnvironment{ClientCores: 1, ServerCores: 1}}
		if tc.tpsOn > 0 {
			ref.TPS = map[string]map[string]map[int]float64{"oltp_read_only": {"plain": {8: 1000}, "tls": {8: tc.tpsOn}}}
		}
		order := Order{Targets: []string{"mariadb"}, Workloads: []string{"oltp_read_only"}, Variants: []string{"plain", "tls"}}
		count := map[Verdict]int{}
		tb := lossVerdicts(l, ref, rows, order, "plain", count)
		if len(tb.Rows) != 1 || count[tc.wantCount] != 1 {
			t.Errorf("%s: published %.2f (encbench %.2f): counted %v, row %v", tc.name, tc.pub, measured, count, tb.Rows)
		}
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
	tb := partsVerdicts(l, ref, rs, "plain", order, map[Verdict]int{})
	var got []string
	for _, row := range tb.Rows {
		got = append(got, row[1].S+" "+row[2].S)
	}
	if want := []string{"connect connect", "connect_reused reused_query"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}
