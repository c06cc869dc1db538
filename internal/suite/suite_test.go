package suite

import (
	"errors"
	"fmt"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/variant"
	"slices"
	"strings"
	"testing"
	"time"
)

const sample = `name: t
targets:
  - engine: postgres
  - engine: mariadb
variants: [plain, tls, tde]
workloads:
  - name: oltp_point_select
  - name: oltp_read_only
    options: {range-size: 50}
threads: [1, 8]
time: 5
warmup: 1
repetitions: 2
data: {tables: 2, table-size: 1000}
scales:
  big: {data: {tables: 16}, threads: [64]}
`

func noTDEOnPostgres(engine string, v variant.Variant) error {
	if engine == "postgres" && v.Has("tde") {
		return errors.New("no TDE")
	}
	return nil
}

func TestParseRejectsUnknownKeyWithLine(t *testing.T) {
	_, err := Parse([]byte("name: x\ntargets:\n  - engine: postgres\n    colour: red\n"))
	if err == nil || !strings.Contains(err.Error(), "colour") || !strings.Contains(err.Error(), "[4:") {
		t.Fatalf("want unknown key with line 4, got %v", err)
	}
}

func TestParseChecks(t *testing.T) {
	for _, bad := range []string{
		"name: x\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [rot13]\nworkloads: [{name: a}]\n",
		"name: x\ntargets: [{engine: postgres}, {engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\n",
		"name: x\ntargets: [{dsn: 'postgres://h/db'}]\nvariants: [plain]\nworkloads: [{name: a}]\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\nprecision: -1\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\nbudget: soon\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ndisturbance: {foreign_pct: 0, steal_pct: 5}\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ndisturbance: {foreign_pct: 10, steal_pct: 5, stall_pct: 100}\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntime: 1\nturn: 5ms\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntime: 1\nturn: 2s\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntime: 1\nrestart: always\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

func TestTurnAndRestart(t *testing.T) {
	s, err := Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntime: 1\nturn: 250ms\nrestart: repetition\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.TurnDuration() != 250*time.Millisecond || s.Restart != "repetition" {
		t.Errorf("turn %v, restart %q", s.TurnDuration(), s.Restart)
	}
	// The key's old name is refused, naming the new one.
	_, err = Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntime: 1\nslice: 250ms\n"))
	if err == nil || !strings.Contains(err.Error(), "turn:") || !strings.Contains(err.Error(), "[6:") {
		t.Errorf("slice: %v", err)
	}
}

func TestExpandInterleavesRepetitions(t *testing.T) {
	s, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(*s, NoOverrides(), noTDEOnPostgres)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Setups) != 5 || len(p.Skipped) != 1 {
		t.Fatalf("setups %d skipped %v", len(p.Setups), p.Skipped)
	}
	if want := 5 * 2 * 2 * 2; len(p.Cells) != want {
		t.Fatalf("cells %d, want %d", len(p.Cells), want)
	}
	half := len(p.Cells) / 2
	for i, c := range p.Cells {
		if wantRep := 1 + i/half; c.Repetition != wantRep {
			t.Fatalf("cell %d %s has repetition %d, want %d", i, c.ID, c.Repetition, wantRep)
		}
	}
	// Neighbouring cells of one workload and thread count change variant.
	if p.Cells[0].Setup == p.Cells[1].Setup {
		t.Fatalf("first two cells share a setup: %s %s", p.Cells[0].ID, p.Cells[1].ID)
	}
	ids := map[string]bool{}
	for _, c := range p.Cells {
		if ids[c.ID] {
			t.Fatalf("duplicate cell id %s", c.ID)
		}
		ids[c.ID] = true
	}
	if p.Cells[0].Options != nil || p.Cells[len(p.Cells)-1].Options["range-size"] != "50" {
		t.Fatalf("options not carried: %+v", p.Cells[len(p.Cells)-1])
	}
}

func TestOverridesAndScale(t *testing.T) {
	s, _ := Parse([]byte(sample))
	o := NoOverrides()
	o.Time, o.Warmup, o.Repetitions, o.Threads, o.Engines, o.Scale = 1, 0, 1, []int{4}, []string{"mariadb"}, "big"
	p, err := Expand(*s, o, noTDEOnPostgres)
	if err != nil {
		t.Fatal(err)
	}
	if p.Suite.Time != 1 || p.Suite.Warmup != 0 || len(p.Cells) != 3*2 || p.Cells[0].Threads != 4 {
		t.Fatalf("overrides not applied: time %d warmup %d cells %d", p.Suite.Time, p.Suite.Warmup, len(p.Cells))
	}
	if p.Suite.DataOptions()["tables"] != "16" || p.Suite.DataOptions()["table-size"] != "1000" {
		t.Fatalf("scale data: %v", p.Suite.DataOptions())
	}
	o = NoOverrides()
	o.Engines = []string{"mongodb"}
	if _, err := Expand(*s, o, nil); err == nil {
		t.Fatal("unknown engine accepted")
	}
	o = NoOverrides()
	o.Scale = "huge"
	if _, err := Expand(*s, o, nil); err == nil {
		t.Fatal("unknown scale accepted")
	}
}

func TestBuiltinSuitesParseAndExpand(t *testing.T) {
	list, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	byName := map[string]Suite{}
	for _, s := range list {
		names[s.Name] = true
		byName[s.Name] = s
		if _, err := Expand(s, NoOverrides(), noTDEOnPostgres); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if !names["quick"] || !names["tde"] || !names["tls"] || !names["colenc-tpcc"] {
		t.Fatalf("built-in suites: %v", names)
	}
	if _, err := Expand(byName["tde"], Overrides{Time: -1, Warmup: -1, Repetitions: -1, Scale: "full"}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := Expand(byName["colenc-tpcc"], NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two engines x four levels x four terminal counts x five repetitions.
	if len(p.Setups) != 8 || len(p.Cells) != 160 {
		t.Fatalf("colenc-tpcc: %d setups, %d cells", len(p.Setups), len(p.Cells))
	}
}

// colenc-sysbench runs R4's id workloads in the id variants and its k
// workloads in the k variants only, with per-engine column sets.
func TestColencSysbenchSuite(t *testing.T) {
	list, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var s Suite
	for _, x := range list {
		if x.Name == "colenc-sysbench" {
			s = x
		}
	}
	p, err := Expand(s, NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// 2 engines x 7 variants; per engine, thread count and repetition 5
	// workloads x 3 variants, and enc_range_sum_k in enc-k-index-rows and
	// enc-k-index-sum.
	if len(p.Setups) != 14 || len(p.Cells) != 2*4*5*17 {
		t.Fatalf("%d setups, %d cells", len(p.Setups), len(p.Cells))
	}
	for _, c := range p.Cells {
		k := strings.HasSuffix(c.Workload, "_k")
		if (c.Variant == "enc-rest" || c.Variant == "enc-all") && k || (c.Variant == "enc-k" || c.Variant == "enc-k-index") && !k ||
			(c.Variant == "enc-k-index-rows" || c.Variant == "enc-k-index-sum") && c.Workload != "enc_range_sum_k" {
			t.Fatalf("cell %s runs in the wrong variant", c.ID)
		}
	}
	if got := s.ColumnSets["enc-all"].EncryptFor("mariadb"); !strings.HasPrefix(got, "id:det") {
		t.Errorf("enc-all on mariadb: %s", got)
	}
	if got := s.ColumnSets["enc-all"].EncryptFor("postgres"); !strings.HasPrefix(got, "id:ore") {
		t.Errorf("enc-all on postgres: %s", got)
	}
	// enc-k is R4's k_1 without a ciphertext index: an ordinary index on
	// det k on both engines, ranges summed by value.
	for _, e := range []string{"postgres", "mariadb"} {
		ek := s.ColumnSets["enc-k"]
		if got := ek.EncryptFor(e); !strings.Contains(got, "k:det") || ek.Options["k_sum_by_value"] != true || ek.Options["create_secondary"] != nil {
			t.Errorf("enc-k on %s: %s %v", e, got, ek.Options)
		}
	}
	// enc-k-index sums by value (R4 summed on the server); its -rows form
	// sends every row's k to the client and has no R4 reference.
	ki, rows := s.ColumnSets["enc-k-index"], s.ColumnSets["enc-k-index-rows"]
	if ki.EncryptFor("postgres") != rows.EncryptFor("postgres") || !strings.Contains(ki.EncryptFor("postgres"), "k:ore") ||
		ki.Options["k_sum_by_value"] != true || rows.Options["k_sum_by_value"] != nil {
		t.Errorf("enc-k-index %s %v, enc-k-index-rows %s %v", ki.EncryptFor("postgres"), ki.Options, rows.EncryptFor("postgres"), rows.Options)
	}
	if len(s.Reference.Losses()) != 5 {
		t.Errorf("reference workloads: %v", s.Reference.Losses())
	}
	bad := []string{
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain, enc-x]\nworkloads: [{name: enc_point_select}]\nthreads: [1]\ntime: 1\nrepetitions: 1\n",
		"name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: enc_point_select, variants: [enc-y]}]\nthreads: [1]\ntime: 1\nrepetitions: 1\n",
	}
	for _, b := range bad {
		if _, err := Parse([]byte(b)); err == nil {
			t.Errorf("accepted:\n%s", b)
		}
	}
}

func TestPlacement(t *testing.T) {
	cases := []struct {
		spec   string
		server bool
		n      int
		want   string
	}{
		{"auto", false, 2, "0"}, {"auto", true, 2, "1"}, {"auto", false, 8, "0-3"}, {"auto", true, 8, "4-7"},
		{"auto", true, 1, ""}, {"none", false, 4, ""}, {"0,2", false, 4, "0,2"},
	}
	for _, c := range cases {
		if got := Placement(c.spec, c.server, c.n); got != c.want {
			t.Errorf("Placement(%q, %v, %d) = %q, want %q", c.spec, c.server, c.n, got, c.want)
		}
	}
}

// Within each block (repetition, workload, threads) every variant runs
// once, in an order drawn from the seed: the same seed gives the same
// plan, the seed is recorded, and over many blocks each variant comes
// first sometimes.
func TestBlockOrderIsRandomisedFromASeed(t *testing.T) {
	s, err := Parse([]byte(strings.Replace(sample, "repetitions: 2", "repetitions: 40", 1)))
	if err != nil {
		t.Fatal(err)
	}
	o := NoOverrides()
	o.Seed = 42
	a, _ := Expand(*s, o, nil)
	b, _ := Expand(*s, o, nil)
	if a.Seed != 42 {
		t.Errorf("seed recorded as %d", a.Seed)
	}
	for i := range a.Cells {
		if a.Cells[i].ID != b.Cells[i].ID {
			t.Fatalf("the same seed gave another order at cell %d", i)
		}
	}
	first := map[string]int{}
	blocks := map[string][]string{}
	var order []string
	for _, c := range a.Cells {
		k := fmt.Sprintf("%s/%s/%d/%d", c.Target, c.WorkloadID(), c.Threads, c.Repetition)
		if len(blocks[k]) == 0 {
			first[c.Variant]++
			order = append(order, k)
		}
		blocks[k] = append(blocks[k], c.Variant)
	}
	for _, k := range order {
		seen := map[string]bool{}
		for _, v := range blocks[k] {
			if seen[v] {
				t.Fatalf("block %s runs %s twice", k, v)
			}
			seen[v] = true
		}
	}
	if len(first) < 2 {
		t.Errorf("one variant always runs first: %v", first)
	}
	o.Seed = 43
	c, _ := Expand(*s, o, nil)
	same := true
	for i := range a.Cells {
		same = same && a.Cells[i].ID == c.Cells[i].ID
	}
	if same {
		t.Error("seeds 42 and 43 gave the same order")
	}
	o.Seed = 0
	d, _ := Expand(*s, o, nil)
	if d.Cells[0].Variant != s.Variants[0] {
		t.Errorf("seed 0 should keep the suite's order, got %s first", d.Cells[0].Variant)
	}
}

// aa is the baseline's layers on a setup of its own; it cannot be first.
func TestAAVariant(t *testing.T) {
	text := strings.Replace(sample, "variants: [plain, tls, tde]", "variants: [tls1.3, aa, tde]", 1)
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.VariantOf("aa")
	if err != nil || !v.AA || v.Server() != "tls" || v.Without().String() != "aa" || (variant.Variant{Layers: v.Layers}).String() != "tls1.3" {
		t.Fatalf("aa of tls1.3: %+v %v", v, err)
	}
	p, err := Expand(*s, NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var aa int
	for _, su := range p.Setups {
		if su.Variant == "aa" {
			aa++
		}
	}
	if aa != 2 {
		t.Errorf("%d aa setups, want one of its own per target", aa)
	}
	if _, err := Parse([]byte(strings.Replace(sample, "variants: [plain, tls, tde]", "variants: [aa, plain]", 1))); err == nil || !strings.Contains(err.Error(), "baseline first") {
		t.Errorf("aa first: %v", err)
	}
}

func TestPrecisionSettings(t *testing.T) {
	s, err := Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\nthreads: [1]\ntime: 1\nrepetitions: 3\nprecision: 4\nbudget: 1h30m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if least, most := s.BlockBounds(); least != 3 || most != 30 {
		t.Fatalf("blocks %d..%d, want 3..30 (the default most)", least, most)
	}
	if s.BudgetDuration() != 90*time.Minute || s.Disturb() != defaultDisturbance {
		t.Fatalf("budget %v, disturbance %+v", s.BudgetDuration(), s.Disturb())
	}
	// A rule without stall_pct keeps the default stall rule.
	own, err := Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ndisturbance: {foreign_pct: 20, steal_pct: 5, reruns: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := own.Disturb(); d.ForeignPct != 20 || d.StallPct != defaultDisturbance.StallPct || d.Reruns != 1 {
		t.Fatalf("own rule read as %+v", d)
	}
	o := NoOverrides()
	o.Precision, o.Budget = 0, "5m"
	p, err := Expand(*s, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if least, most := p.Suite.BlockBounds(); p.Suite.Precision != 0 || least != 3 || most != 3 || p.Suite.BudgetDuration() != 5*time.Minute {
		t.Fatalf("--precision 0 --budget 5m gave precision %v, blocks %d..%d, budget %v", p.Suite.Precision, least, most, p.Suite.BudgetDuration())
	}
	o.Budget = "yesterday"
	if _, err := Expand(*s, o, nil); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("a bad --budget was accepted: %v", err)
	}
}

func TestOfferedLoadBlocks(t *testing.T) {
	s, err := Parse([]byte("name: x\ntargets: [{engine: postgres}, {engine: mariadb}]\nvariants: [plain, tls]\nworkloads: [{name: oltp_read_only}]\nthreads: [8]\ntime: 1\nrepetitions: 2\noffered_load: [50, 80]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := seededPlan(t, s)
	g := Group{Target: "mariadb", Workload: "oltp_read_only", Threads: 8}
	if p.HasLoad(g) {
		t.Fatal("a new plan has load blocks")
	}
	before := len(p.Cells)
	cells := p.LoadBlocks(g, 1000)
	// 2 loads x 2 repetitions x 2 variants, all on mariadb.
	if len(cells) != 8 || len(p.Cells) != before+8 || !p.HasLoad(g) {
		t.Fatalf("added %d cells, want 8", len(cells))
	}
	ids := map[string]bool{}
	for _, c := range cells {
		want := map[int]float64{50: 500, 80: 800}[c.LoadPct]
		if c.Target != "mariadb" || c.Rate != want || c.Label != LoadLabel("oltp_read_only", c.LoadPct) || c.Group().LoadPct != c.LoadPct {
			t.Fatalf("load cell %+v (group %+v, want rate %v)", c, c.Group(), want)
		}
		if ids[c.ID] {
			t.Fatalf("two load cells share the id %s", c.ID)
		}
		ids[c.ID] = true
	}
	if p.LoadBlocks(g, 0) != nil {
		t.Fatal("load blocks without a saturation throughput")
	}
	if _, err := Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\noffered_load: [120]\n")); err == nil {
		t.Fatal("an offered load of 120% was accepted")
	}
}

// TestBuiltinSuitesAreTranslated: a report in any language shows a
// built-in suite's description and notes in that language.
func TestBuiltinSuitesAreTranslated(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		for _, code := range locale.Codes() {
			if code == locale.Default {
				continue
			}
			tr, ok := s.Translations[code]
			if !ok || tr.Description == "" || len(tr.Notes) != len(s.Notes) {
				t.Errorf("suite %s has no complete %s translation", s.Name, code)
			}
		}
	}
	if _, err := Parse([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\ntranslations: {fr: {description: x}}\n")); err == nil || !strings.Contains(err.Error(), "fr") {
		t.Errorf("a translation into an unknown language: %v", err)
	}
}

func TestServerSettings(t *testing.T) {
	base := "name: x\ntargets: [{engine: mariadb}, {engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\n"
	s, err := Parse([]byte(base + "server_settings:\n  mariadb: {innodb_doublewrite: 0, innodb_flush_method: O_DIRECT}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.SettingsFor("mariadb"), " "); got != "innodb_doublewrite=0 innodb_flush_method=O_DIRECT" {
		t.Errorf("mariadb settings %q", got)
	}
	if got := s.SettingsFor("postgres"); len(got) != 0 {
		t.Errorf("postgres settings %q", got)
	}
	for _, bad := range []string{
		"server_settings:\n  mysql: {innodb_doublewrite: 0}\n",
		"server_settings:\n  mariadb: {\"bad name\": 0}\n",
		"server_settings:\n  mariadb: {innodb_doublewrite: \"0\\n[client]\"}\n",
	} {
		if _, err := Parse([]byte(base + bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// Suite-file keys are written with _; the command line's spelling and
// near misses are refused naming the key meant.
func TestKeySpellingHints(t *testing.T) {
	base := "name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: a}]\n"
	for extra, want := range map[string]string{
		"buffer-pool: 1G\n": "suite-file keys are written with _, this one as buffer_pool",
		"repetitons: 3\n":   "(did you mean repetitions?)",
		"targets2: []\n":    "(did you mean targets?)",
	} {
		_, err := Parse([]byte(base + extra))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "[5:") {
			t.Errorf("%q: %v, want line 5 and %s", extra, err, want)
		}
	}
}

// time, threads and repetitions name their line (or their flag when an
// override set them); repetitions has a default.
func TestRunSettingsNameTheirLine(t *testing.T) {
	base := "name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: oltp_point_select}]\n"
	for extra, want := range map[string]string{
		"threads: [1]\ntime: 0\n":                  "line 6: time must be at least 1 second",
		"threads: [1]\ntime: 5\nrepetitions: -2\n": "line 7: repetitions must be at least 1",
		"time: 5\nthreads: [1, 0]\n":               "line 6: thread count 0",
		"threads: [1]\ntime: 10s\n":                "[6:",
	} {
		s, err := Parse([]byte(base + extra))
		if err == nil {
			_, err = Expand(*s, NoOverrides(), nil)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", extra, err, want)
		}
	}
	s, err := Parse([]byte(base + "threads: [1]\ntime: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(*s, NoOverrides(), nil)
	if err != nil || p.Suite.Repetitions != DefaultRepetitions {
		t.Fatalf("no repetitions key: %v, %d repetitions", err, p.Suite.Repetitions)
	}
	o := NoOverrides()
	o.Repetitions = 0
	if _, err := Expand(*s, o, nil); err == nil || !strings.HasPrefix(err.Error(), "--repetitions: ") {
		t.Errorf("--repetitions 0: %v", err)
	}
}

// A suite file that names no precision, budget or turn gets the precise
// design: precision 3, a budget from its size, turns chosen from the
// warm-up; each default is recorded. Keys given (even precision: 0) or
// flags keep their values.
func TestPreciseDesignIsTheDefault(t *testing.T) {
	text := "name: x\ntargets: [{engine: postgres}]\nvariants: [plain, tls]\nworkloads: [{name: oltp_point_select}]\nthreads: [1, 8]\ntime: 2\nwarmup: 1\n"
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(*s, NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Suite
	if st.Precision != DefaultPrecision || !st.TurnAuto() || !st.Interleaved() || !slices.Equal(st.Defaults, []string{"precision", "budget", "turn"}) {
		t.Errorf("precision %v, turn %q, defaults %v", st.Precision, st.Turn, st.Defaults)
	}
	if want := DefaultBudget(len(p.Cells), 3); st.BudgetDuration() != want || want != 10*time.Minute {
		t.Errorf("budget %q, want %v", st.Budget, want)
	}
	if DefaultBudget(200, 25) != 4*time.Hour+11*time.Minute {
		t.Errorf("a big suite's default budget: %v", DefaultBudget(200, 25))
	}
	s, err = Parse([]byte(text + "precision: 0\nturn: \"off\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := NoOverrides()
	o.Budget = "5m"
	if p, err = Expand(*s, o, nil); err != nil {
		t.Fatal(err)
	}
	if st := p.Suite; st.Precision != 0 || st.Interleaved() || st.Budget != "5m" || len(st.Defaults) != 0 {
		t.Errorf("given keys: precision %v, turn %q, budget %q, defaults %v", st.Precision, st.Turn, st.Budget, st.Defaults)
	}
}

// A scale's options are set on every workload, over the file's own, and
// the suite without the scale keeps its options.
func TestScaleOptions(t *testing.T) {
	text := strings.Replace(sample, "  big: {data: {tables: 16}, threads: [64]}", "  big: {data: {tables: 16}, threads: [64]}\n  short: {options: {range-size: 10, skip-trx: true}}", 1)
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Expand(*s, NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := NoOverrides()
	o.Scale = "short"
	scaled, err := Expand(*s, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range scaled.Suite.Workloads {
		if fmt.Sprint(w.Options["range-size"]) != "10" || w.Options["skip-trx"] != true {
			t.Errorf("%s with the scale: options %v", w.Name, w.Options)
		}
	}
	if ro := plain.Suite.Workloads[1].Options; fmt.Sprint(ro["range-size"]) != "50" || ro["skip-trx"] != nil {
		t.Errorf("without the scale: options %v", ro)
	}
}

// TestSetupsOfVariantsWithOptionsAreFileNames: a variant's options
// (colons, commas, equals signs) never reach a setup's ID, which names
// its sandbox's directory (PostgreSQL splits its socket directories at
// commas), and two variants differing only in a certificate's key get
// servers of their own.
func TestSetupsOfVariantsWithOptionsAreFileNames(t *testing.T) {
	s, err := Parse([]byte(`name: x
targets: [{engine: postgres}]
variants: [plain, "tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256", "tls:cert=rsa-4096", tls]
servers: shared
workloads: [{name: oltp_point_select}]
threads: [1]
time: 1
repetitions: 1
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(*s, NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, su := range p.Setups {
		if strings.ContainsAny(su.ID, ":,=+ /") {
			t.Errorf("setup ID %q is not a plain file name", su.ID)
		}
		owners[su.Variant] = su.ServerID()
	}
	if owners["tls:cert=rsa-4096"] == owners["plain"] || owners["tls"] != owners["plain"] || owners["tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256"] != owners["plain"] {
		t.Errorf("servers %v: want the rsa-4096 certificate on a server of its own, the other TLS variants on plain's", owners)
	}
}

// A script: entry is the script workload with the file as its --file,
// labelled by the file's name; it cannot also name another workload or
// give the file twice.
func TestScriptEntries(t *testing.T) {
	base := "name: s\ntargets:\n  - engine: postgres\nvariants: [plain, tls]\nthreads: [1]\n"
	s, err := Parse([]byte(base + "workloads:\n  - script: scripts/transfer.sql\n  - script: b.sql\n    label: bee\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workloads[0]
	if w.Name != ScriptWorkload || w.Label != "transfer" || w.Options["file"] != "scripts/transfer.sql" || s.Workloads[1].Label != "bee" {
		t.Errorf("script entries: %+v %+v", w, s.Workloads[1])
	}
	for _, bad := range []string{
		"workloads:\n  - name: oltp_read_only\n    script: a.sql\n",
		"workloads:\n  - script: a.sql\n    options: {file: b.sql}\n",
		"workloads:\n  - script: a.sql\n  - script: x/a.sql\n",
	} {
		if _, err := Parse([]byte(base + bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}
