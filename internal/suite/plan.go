package suite

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	tlslayer "github.com/encbench/encbench/internal/layer/tls"
	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/variant"
)

// Overrides are the command line's changes to a suite. Negative or nil
// means "not given".
type Overrides struct {
	Time        int
	Warmup      int
	Repetitions int
	Threads     []int
	Engines     []string
	ClientCPUs  *string
	ServerCPUs  *string
	Scale       string
	// Precision (percentage points, negative: not given) and Budget
	// ("": not given) replace the suite's.
	Precision float64
	Budget    string
	// OfferedLoad replaces the suite's equal-load shares when given.
	OfferedLoad []int
	// Seed shuffles the variants' order within each block; 0 keeps the
	// suite's order. A new suite directory stores the seed it drew.
	Seed uint64
}

// NoOverrides leaves a suite as written.
func NoOverrides() Overrides {
	return Overrides{Time: -1, Warmup: -1, Repetitions: -1, Precision: -1}
}

// Plan is a suite expanded into setups (target x variant, each prepared
// once) and cells in run order.
type Plan struct {
	Suite    Suite  `json:"suite"`
	Baseline string `json:"baseline"`
	// Seed drew the order of the variants within each block (0: suite order).
	Seed    uint64   `json:"seed,omitempty"`
	Setups  []Setup  `json:"setups"`
	Cells   []Cell   `json:"cells"`
	Skipped []string `json:"skipped,omitempty"`
	// Extra counts the blocks added past the suite's repetitions to reach
	// its precision.
	Extra int `json:"extra_blocks,omitempty"`

	threadsOverridden bool
}

// Setup is one target with one variant: a sandbox of its own, or a DSN.
type Setup struct {
	ID      string `json:"id"`
	Target  string `json:"target"`
	Engine  string `json:"engine,omitempty"`
	Sandbox bool   `json:"sandbox"`
	Variant string `json:"variant"`
	// Owner is the setup whose server and data this one uses, when it is
	// not its own: variants that differ only in TLS (and aa) on a shared
	// server, every variant of a DSN target with the same data.
	Owner string `json:"server,omitempty"`
}

// ServerID is the setup that owns the server this setup runs on.
func (s Setup) ServerID() string {
	if s.Owner != "" {
		return s.Owner
	}
	return s.ID
}

// dataKey is what a variant's server must hold: its layers at rest, its
// column encryption, its certificate's key, whether it requires client
// certificates and a TLS 1.3 suite (the server's choice), not the rest of
// its TLS (the client's choice: version, a TLS 1.2 suite) nor A/A-ness.
func dataKey(v variant.Variant) string {
	server := ""
	if tls, on := tlslayer.Of(v.Layers); on {
		if tls.Cert != "" {
			server += "|cert=" + tls.Cert
		}
		if tls.ClientCert {
			server += "|client-cert"
		}
		if tls.ServerChoosesCipher() {
			server += "|tls13=" + tls.Cipher
		}
	}
	return variant.Variant{Layers: v.Without("tls").Layers}.String() + server
}

// Cell is one measured run.
type Cell struct {
	ID         string            `json:"id"`
	Setup      string            `json:"setup"`
	Target     string            `json:"target"`
	Variant    string            `json:"variant"`
	Workload   string            `json:"workload"`
	Label      string            `json:"label,omitempty"`
	Options    map[string]string `json:"options,omitempty"`
	Threads    int               `json:"threads"`
	Repetition int               `json:"repetition"`
	// LoadPct and Rate: a cell run at a fixed rate, LoadPct% of the
	// baseline's saturation throughput (Rate transactions/s), open loop.
	LoadPct int     `json:"load_pct,omitempty"`
	Rate    float64 `json:"rate,omitempty"`
}

// WorkloadID is the cell's workload label, or its name without one.
func (c Cell) WorkloadID() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Workload
}

// Supports says whether a sandbox engine can run a variant; nil when it can.
type Supports func(engine string, v variant.Variant) error

// DefaultRepetitions is the blocks of each cell a suite runs at least
// when it does not say (the precision rule may add more).
const DefaultRepetitions = 3

// DefaultPrecision is the half-width, in points, that every loss interval
// of a suite that names no precision is run to (within its budget).
const DefaultPrecision = 3.0

// Expand applies the overrides and expands the matrix. Repetitions are
// the outer loop, so every variant's repetition r runs before any r+1:
// drift on a noisy machine then hits all variants alike. In reads-first
// order (the default) that holds within each phase: every block of the
// read-only workloads (MarkReadOnly) runs before the first that writes. A block is one
// repetition of one workload at one thread count: all its variants back
// to back, in an order drawn from the seed per block (randomised multiple
// interleaved trials, Abedi and Brecht, ICPE 2017), so no variant always
// runs first or right after a write-heavy cell.
func Expand(s Suite, o Overrides, supports Supports) (*Plan, error) {
	if err := s.apply(o); err != nil {
		return nil, err
	}
	p := &Plan{Suite: s, Baseline: s.Variants[0], Seed: o.Seed, threadsOverridden: len(o.Threads) > 0}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eedb10c))
	for _, t := range s.Targets {
		owners := map[string]string{}
		for _, name := range s.Variants {
			v, _ := s.VariantOf(name)
			if t.DSN == "" && supports != nil {
				if err := supports(t.Engine, v); err != nil {
					p.Skipped = append(p.Skipped, fmt.Sprintf("%s %s: %v", t.Name, name, err))
					continue
				}
			}
			su := Setup{ID: t.Name + "-" + fileSafe(name), Target: t.Name, Engine: t.Engine, Sandbox: t.DSN == "", Variant: name}
			if !su.Sandbox || s.Servers == "shared" {
				key := dataKey(v)
				if owner, ok := owners[key]; ok {
					su.Owner = owner
				} else {
					owners[key] = su.ID
				}
			}
			p.Setups = append(p.Setups, su)
		}
	}
	if len(p.Setups) == 0 {
		return nil, fmt.Errorf("nothing to run: %s", strings.Join(p.Skipped, "; "))
	}
	for rep := 1; rep <= s.Repetitions; rep++ {
		for _, w := range s.Workloads {
			for _, th := range p.threadsOf(w) {
				block := p.block(w, th, rep, "")
				if o.Seed != 0 {
					rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
				}
				p.Cells = append(p.Cells, block...)
			}
		}
	}
	p.orderPhases()
	if slices.Contains(p.Suite.Defaults, "budget") {
		p.Suite.Budget = DefaultBudget(len(p.Cells), p.Suite.Time+p.Suite.Warmup).String()
	}
	return p, nil
}

// DefaultBudget is the wall time a suite that names no budget may take:
// three times what its least blocks take (cells x seconds each), so the
// precision rule may run about twice as many blocks again as the least,
// and at least ten minutes, in whole minutes.
func DefaultBudget(cells, secondsEach int) time.Duration {
	d := 3 * time.Duration(cells*secondsEach) * time.Second
	return max(10*time.Minute, d.Round(time.Minute)+time.Minute)
}

// threadsOf is a workload's thread counts: its own, or the suite's.
func (p *Plan) threadsOf(w Workload) []int {
	if len(w.Threads) > 0 && !p.threadsOverridden {
		return w.Threads
	}
	return p.Suite.Threads
}

// block is repetition rep of one workload at one thread count: a cell per
// setup it runs on (on one target only, if target is given).
func (p *Plan) block(w Workload, th, rep int, target string) []Cell {
	var block []Cell
	for _, su := range p.Setups {
		if t, _ := p.Suite.Target(su.Target); !w.RunsOn(t) || !w.RunsIn(su.Variant) || (target != "" && su.Target != target) {
			continue
		}
		id := fmt.Sprintf("%s__%s__t%d__r%d", su.ID, w.ID(), th, rep)
		block = append(block, Cell{ID: id, Setup: su.ID, Target: su.Target, Variant: su.Variant,
			Workload: w.Name, Label: w.Label, Options: w.OptionStrings(), Threads: th, Repetition: rep})
	}
	return block
}

func (s *Suite) apply(o Overrides) error {
	if err := s.applyScale(o.Scale); err != nil {
		return err
	}
	s.applyFlags(o)
	if len(o.Engines) > 0 {
		if err := s.keepTargets(o.Engines); err != nil {
			return err
		}
	}
	s.takeDefaults(o)
	return s.checkShape(o)
}

// applyScale merges a named scale's data, buffer pool and threads.
func (s *Suite) applyScale(name string) error {
	if name == "" {
		return nil
	}
	sc, ok := s.Scales[name]
	if !ok {
		names := slices.Sorted(maps.Keys(s.Scales))
		if len(names) == 0 {
			return fmt.Errorf("suite %s has no scales; --scale does not apply", s.Name)
		}
		return fmt.Errorf("suite %s has no scale %q: use %s", s.Name, name, strings.Join(names, ", "))
	}
	if s.Data == nil {
		s.Data = map[string]any{}
	}
	maps.Copy(s.Data, sc.Data)
	if sc.BufferPool != "" {
		s.BufferPool = sc.BufferPool
	}
	if len(sc.Threads) > 0 {
		s.Threads = sc.Threads
	}
	if len(sc.Options) > 0 {
		// The suite passed in shares its workloads with the caller's.
		s.Workloads = slices.Clone(s.Workloads)
	}
	for i := range s.Workloads {
		if len(sc.Options) == 0 {
			break
		}
		w := &s.Workloads[i]
		w.Options = maps.Clone(w.Options)
		if w.Options == nil {
			w.Options = map[string]any{}
		}
		maps.Copy(w.Options, sc.Options)
	}
	return nil
}

// applyFlags sets what the command line gave over the file's values.
func (s *Suite) applyFlags(o Overrides) {
	if o.Time >= 0 {
		s.Time = o.Time
	}
	if o.Warmup >= 0 {
		s.Warmup = o.Warmup
	}
	if o.Repetitions >= 0 {
		s.Repetitions = o.Repetitions
	}
	if len(o.Threads) > 0 {
		s.Threads = o.Threads
	}
	if o.Precision >= 0 {
		s.Precision = o.Precision
	}
	if o.Budget != "" {
		s.Budget = o.Budget
	}
	if len(o.OfferedLoad) > 0 {
		s.OfferedLoad = o.OfferedLoad
	}
	if o.ClientCPUs != nil {
		s.ClientCPUs = *o.ClientCPUs
	}
	if o.ServerCPUs != nil {
		s.ServerCPUs = *o.ServerCPUs
	}
}

// takeDefaults fills what neither the file nor a flag gives. The precise
// design is the default, recorded so the report can say so.
func (s *Suite) takeDefaults(o Overrides) {
	if s.Repetitions == 0 && s.at("$.repetitions") == "" && o.Repetitions < 0 {
		s.Repetitions = DefaultRepetitions
	}
	s.Defaults = nil
	if len(s.source) > 0 && s.at("$.precision") == "" && o.Precision < 0 {
		s.Precision = DefaultPrecision
		s.Defaults = append(s.Defaults, "precision")
	}
	if len(s.source) > 0 && s.at("$.budget") == "" && o.Budget == "" {
		s.Defaults = append(s.Defaults, "budget")
	}
	if s.TurnAuto() {
		s.Defaults = append(s.Defaults, "turn")
	}
}

// checkShape refuses times, repetitions and threads a plan cannot have,
// naming a value from an override by its flag and one from the file by
// its line.
func (s *Suite) checkShape(o Overrides) error {
	where := func(key, flag string, overridden bool) string {
		if overridden {
			return "--" + flag + ": "
		}
		return s.at("$." + key)
	}
	switch {
	case s.Time <= 0:
		return fmt.Errorf("%stime must be at least 1 second (the seconds each variant runs per block)", where("time", "time", o.Time >= 0))
	case s.Warmup < 0:
		return fmt.Errorf("%swarmup must not be negative", where("warmup", "warmup-time", o.Warmup >= 0))
	case s.Repetitions < 1:
		return fmt.Errorf("%srepetitions must be at least 1 (default %d)", where("repetitions", "repetitions", o.Repetitions >= 0), DefaultRepetitions)
	case len(s.Threads) == 0:
		return fmt.Errorf("no thread counts: give threads: [1, 8]")
	}
	if err := s.checkPrecision(); err != nil {
		return err
	}
	if err := s.checkLoad(); err != nil {
		return err
	}
	for i, th := range s.Threads {
		if th < 1 {
			return fmt.Errorf("%sthread count %d: must be at least 1", where(fmt.Sprintf("threads[%d]", i), "threads", len(o.Threads) > 0), th)
		}
	}
	return nil
}

// Matches says whether --engines names the target, by its name or its
// engine.
func (t Target) Matches(engines []string) bool {
	return slices.Contains(engines, t.Name) || (t.Engine != "" && slices.Contains(engines, t.Engine))
}

// keepTargets keeps the targets --engines names (by name or engine).
func (s *Suite) keepTargets(engines []string) error {
	var kept []Target
	for _, t := range s.Targets {
		if t.Matches(engines) {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		var names []string
		for _, t := range s.Targets {
			names = append(names, t.Name)
		}
		return fmt.Errorf("--engines %s matches no target of suite %s (it has %s)", strings.Join(engines, ","), s.Name, strings.Join(names, ", "))
	}
	s.Targets = kept
	return nil
}

func stringify(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// DataOptions are the data set's prepare options as flag/value pairs.
func (s Suite) DataOptions() map[string]string { return stringify(s.Data) }

// Args turns options into command-line flags, in a stable order.
func Args(opts map[string]string) []string {
	keys := slices.Sorted(maps.Keys(opts))
	var out []string
	for _, k := range keys {
		out = append(out, "--"+k+"="+opts[k])
	}
	return out
}

// fileSafe makes a name a file name: a variant's layers and options
// (tls1.2:cert=rsa-4096,cipher=...) must not reach a path a server reads
// as a list (PostgreSQL's unix_socket_directories splits at commas).
func fileSafe(s string) string {
	return strings.NewReplacer("+", "_", "/", "_", " ", "_", ":", "_", ",", "_", "=", "-").Replace(s)
}

// Target returns the suite's target by name.
func (s Suite) Target(name string) (Target, bool) {
	for _, t := range s.Targets {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// TargetLine is "line N: " for the named target's entry in the suite
// file ("" when it is not from a file).
func (s Suite) TargetLine(name string) string {
	for i, t := range s.Targets {
		if t.Name == name {
			return s.at(fmt.Sprintf("$.targets[%d]", i))
		}
	}
	return ""
}

// Workloads names the distinct workloads in suite order.
func (p *Plan) WorkloadNames() []string {
	var out []string
	for _, w := range p.Suite.Workloads {
		if !slices.Contains(out, w.ID()) {
			out = append(out, w.ID())
		}
	}
	return out
}

// Placement resolves a client_cpus/server_cpus value for a machine with
// ncpu CPUs. "auto" gives the client the first half and the server the
// second half (nothing on one CPU); "none" or "" leaves threads unpinned.
func Placement(spec string, server bool, ncpu int) string {
	switch spec {
	case "", "none":
		return ""
	case "auto":
		if ncpu < 2 {
			return ""
		}
		half := ncpu / 2
		lo, hi := 0, half-1
		if server {
			lo, hi = half, ncpu-1
		}
		if lo == hi {
			return fmt.Sprint(lo)
		}
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	return spec
}

// OptionStrings are the workload's options as flag values.
func (w Workload) OptionStrings() map[string]string { return stringify(w.Options) }

// Record is plan.json in a suite directory: the plan, how it was started
// and how to reproduce each setup by hand.
type Record struct {
	*Plan
	Command    string            `json:"command"`
	CreatedAt  string            `json:"created_at"`
	ClientCPUs string            `json:"client_cpus"`
	ServerCPUs string            `json:"server_cpus"`
	Reproduce  map[string]string `json:"reproduce"`
	// BudgetSpent says the budget ended the blocks before every group
	// reached the precision target.
	BudgetSpent bool `json:"budget_spent,omitempty"`
	// Noise is the machine's own steadiness, checked before the first
	// block of a suite with a precision target.
	Noise *MachineNoise `json:"machine_noise,omitempty"`
	// Failed are the variants with cells that failed in the last
	// execution, with how many and the first cause.
	Failed map[string]Failure `json:"failed,omitempty"`
	// ReusedData are the setups whose DSN target already held the
	// suite's data set (same parameters), with when it was prepared.
	ReusedData map[string]string `json:"reused_data,omitempty"`
}

// Failure is a variant's failed cells and why the first one failed.
type Failure struct {
	Cells int    `json:"cells"`
	Cause string `json:"cause"`
}

// MachineNoise is a noise check: spin loops pinned to each CPU counted
// their work per window for Seconds while every sandbox was frozen.
type MachineNoise struct {
	WindowMs float64          `json:"window_ms"`
	Seconds  float64          `json:"seconds"`
	CPUs     []quiet.CPUNoise `json:"cpus"`
}
