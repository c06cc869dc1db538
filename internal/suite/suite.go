// Package suite is the plan model of a benchmark suite: the YAML file,
// command-line overrides, matrix expansion and the interleaved run order.
// It runs nothing itself; the CLI executes the plan.
package suite

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer/colenc"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/serverconf"
	"github.com/encbench/encbench/internal/variant"
)

// Suite is one suite file.
type Suite struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// Targets are sandboxes (engine only) or servers given by DSN.
	Targets []Target `yaml:"targets" json:"targets"`
	// Variants are encryption layers: plain, tls, tde, tls+tde; tls may
	// pin a version as tls1.2 or tls1.3. The first is the baseline.
	Variants  []string   `yaml:"variants" json:"variants"`
	Workloads []Workload `yaml:"workloads" json:"workloads"`
	Threads   []int      `yaml:"threads" json:"threads"`
	// Time and Warmup are seconds per cell.
	Time        int `yaml:"time" json:"time"`
	Warmup      int `yaml:"warmup" json:"warmup"`
	Repetitions int `yaml:"repetitions" json:"repetitions"`
	// Precision is the target half-width, in percentage points, of every
	// TPS loss interval: past Repetitions, blocks continue until every
	// group reaches it, MaxRepetitions or the Budget (wall time from the
	// suite's start, set-up included). 0 runs exactly Repetitions blocks.
	Precision      float64 `yaml:"precision" json:"precision,omitempty"`
	Budget         string  `yaml:"budget" json:"budget,omitempty"`
	MaxRepetitions int     `yaml:"max_repetitions" json:"max_repetitions,omitempty"`
	// OfferedLoad runs every variant again at these shares (percent) of the
	// baseline's saturation throughput, open loop, for latency and CPU per
	// transaction at equal load.
	OfferedLoad []int `yaml:"offered_load" json:"offered_load,omitempty"`
	// Turn, a duration such as 250ms, interleaves each block's variants
	// inside the block: every variant's workers connect at once and take
	// turns of this length, round after round, until each has run Time
	// seconds. "" or auto (the default) chooses the length from the
	// warm-up's transaction latency; off runs a block's variants one
	// after the other.
	Turn string `yaml:"turn" json:"turn,omitempty"`
	// Defaults are the keys the suite left out that took their default
	// (precision, budget, turn: auto), for the report.
	Defaults []string `yaml:"-" json:"defaults,omitempty"`
	// Restart, "repetition", restarts every sandbox server before the
	// blocks of each new repetition: two instances of one server differ by
	// a few percent (memory layout), and a new draw per block turns that
	// bias into noise the intervals show. "" (default) keeps the servers.
	Restart string `yaml:"restart" json:"restart,omitempty"`
	// Order is reads-first (default: every repetition of the read-only
	// workloads before those that write) or as-listed (see OrderAsListed).
	Order string `yaml:"order" json:"order,omitempty"`
	// Disturbance is when a repetition runs again (see Disturbance).
	Disturbance *Disturbance `yaml:"disturbance" json:"disturbance,omitempty"`
	// RecreateData lets a suite replace a data set of other parameters
	// on a DSN target (default: refused, naming what differs).
	RecreateData bool `yaml:"recreate_data" json:"recreate_data,omitempty"`
	// Cleanup removes the data sets the suite prepared on DSN targets once
	// every cell has finished (default: kept, for --resume and later
	// suites with the same data parameters).
	Cleanup bool `yaml:"cleanup" json:"cleanup,omitempty"`
	// Data are the prepare options of the data set (tables, table-size),
	// shared by every workload of a family.
	Data       map[string]any `yaml:"data" json:"data"`
	BufferPool string         `yaml:"buffer_pool" json:"buffer_pool"`
	ClientCPUs string         `yaml:"client_cpus" json:"client_cpus"`
	ServerCPUs string         `yaml:"server_cpus" json:"server_cpus"`
	TDECipher  string         `yaml:"tde_cipher" json:"tde_cipher,omitempty"`
	// ServerSettings are server settings per sandbox engine (name: value),
	// written into every sandbox server of that engine, baseline and
	// variants alike, after encbench's own so that they win.
	ServerSettings map[string]map[string]string `yaml:"server_settings" json:"server_settings,omitempty"`
	// Servers is "own" (default: every variant of a sandbox target on a
	// server of its own) or "shared": variants that differ from each other
	// only in TLS, and the A/A check, run on one server whose TLS is
	// optional (the client chooses), so their comparison holds no
	// differences between two server instances. Variants of a DSN target
	// always share its server.
	Servers string `yaml:"servers" json:"servers,omitempty"`
	// Scales are named overrides, chosen with --scale.
	Scales map[string]Scale `yaml:"scales" json:"scales,omitempty"`
	// Notes are shown in the report under the suite's description.
	Notes []string `yaml:"notes" json:"notes,omitempty"`
	// Translations give the description and notes in the report's other
	// languages (zh, ja, id), keyed by language code.
	Translations map[string]Translation `yaml:"translations" json:"translations,omitempty"`
	// Reference is a published result the report sets beside the suite's.
	Reference *Reference `yaml:"reference" json:"reference,omitempty"`
	// ColumnSets name the column encryption of enc-* variants: the
	// --encrypt of the enc_* workloads, per engine if they differ.
	ColumnSets map[string]ColumnSet `yaml:"column_sets" json:"column_sets,omitempty"`

	// source is the YAML text, for line numbers in errors.
	source []byte
}

// Translation is a suite's own text in one language.
type Translation struct {
	Description string   `yaml:"description" json:"description"`
	Notes       []string `yaml:"notes" json:"notes,omitempty"`
}

// Text is the suite's description and notes in language lang, in English
// where the suite gives no translation.
func (s *Suite) Text(lang string) Translation {
	if t, ok := s.Translations[lang]; ok {
		if t.Description == "" {
			t.Description = s.Description
		}
		if len(t.Notes) != len(s.Notes) {
			t.Notes = s.Notes
		}
		return t
	}
	return Translation{Description: s.Description, Notes: s.Notes}
}

// ColumnSet is one enc-* variant: which columns the client encrypts, with
// which schemes, and prepare options that go with it (an index or not).
type ColumnSet struct {
	Encrypt string `yaml:"encrypt" json:"encrypt"`
	// Engines replace Encrypt on targets of an engine (a scheme the
	// server cannot use, such as ore on MariaDB).
	Engines map[string]string `yaml:"engines" json:"engines,omitempty"`
	// Options are workload options of the variant, prepare and run.
	Options map[string]any `yaml:"options" json:"options,omitempty"`
	Note    string         `yaml:"note" json:"note,omitempty"`
}

// EncryptFor is the set's --encrypt on an engine.
func (c ColumnSet) EncryptFor(engine string) string {
	if e, ok := c.Engines[engine]; ok {
		return e
	}
	return c.Encrypt
}

// Target is a sandbox (Engine set, DSN empty) or a server given by DSN.
type Target struct {
	Name    string `yaml:"name" json:"name"`
	Engine  string `yaml:"engine" json:"engine,omitempty"`
	DSN     string `yaml:"dsn" json:"-"`
	TLSCA   string `yaml:"tls_ca" json:"tls_ca,omitempty"`
	TLSCert string `yaml:"tls_cert" json:"tls_cert,omitempty"`
	TLSKey  string `yaml:"tls_key" json:"tls_key,omitempty"`
	// TDEDSN is where tde variants run: a server with encryption at rest
	// on, or another database of this server that holds encrypted copies.
	TDEDSN string `yaml:"tde_dsn" json:"-"`
	// TDEDatabase names the database of this server that holds the
	// encrypted copies of the tables (tde variants, no tde_dsn; default:
	// the DSN's database with _tde appended).
	TDEDatabase string `yaml:"tde_database" json:"tde_database,omitempty"`
	// ServerPID lets encbench measure a local server's CPU.
	ServerPID int `yaml:"server_pid" json:"server_pid,omitempty"`
	// TDEServerPID is tde_dsn's server, when it is local.
	TDEServerPID int `yaml:"tde_server_pid" json:"tde_server_pid,omitempty"`
	// Generators runs each cell of this target as that many encbench
	// processes sharing the threads, with a common start, merged exactly
	// (encbench run --generator I/N, encbench merge); 0 or 1: one process.
	Generators int `yaml:"generators" json:"generators,omitempty"`
	// Replicas gives a sandbox target replicas of its server, streaming
	// from it (one synchronous with Sync): the topology its cells run on.
	Replicas int  `yaml:"replicas" json:"replicas,omitempty"`
	Sync     bool `yaml:"sync" json:"sync,omitempty"`
	// SessionAttrs chooses which member of the target's host list a run
	// uses (libpq's target_session_attrs: prefer-standby reaches a
	// replica, as R2's readPreference=secondary did); prepare and the
	// other phases still go to the first host that answers.
	SessionAttrs string `yaml:"session_attrs" json:"session_attrs,omitempty"`
	// Workloads, when set, limits the target to these workload entries
	// (labels, or names for entries without one): a topology measured
	// for part of a suite.
	Workloads []string `yaml:"workloads" json:"workloads,omitempty"`
}

// Workload is one workload with its options (flag names without dashes).
type Workload struct {
	Name string `yaml:"name" json:"name"`
	// Script is a script in pgbench's language (a path relative to the
	// suite file): the workload script with it as its --file, labelled
	// with the file's name unless a label is given.
	Script string `yaml:"script" json:"script,omitempty"`
	// Label tells two entries of one workload apart (for example pooled
	// and reconnect-per-transaction); reports group by it.
	Label   string         `yaml:"label" json:"label,omitempty"`
	Options map[string]any `yaml:"options" json:"options,omitempty"`
	// Engines limits the workload to targets of these engines or names.
	Engines []string `yaml:"engines" json:"engines,omitempty"`
	// Threads, when set, replaces the suite's thread counts for this
	// workload (the connect workload is sequential, like report R2).
	Threads []int `yaml:"threads" json:"threads,omitempty"`
	// Variants, when set, limits the workload to these variants (R4's
	// non-key queries run only in the variants about k).
	Variants []string `yaml:"variants" json:"variants,omitempty"`
	// ReadOnly is the workload's capability with these options, filled
	// in by MarkReadOnly, not written in a suite.
	ReadOnly bool `yaml:"-" json:"read_only,omitempty"`
}

// RunsIn says whether the workload runs in a variant.
func (w Workload) RunsIn(variant string) bool {
	return len(w.Variants) == 0 || slices.Contains(w.Variants, variant)
}

// ID is the label, or the name when there is none.
func (w Workload) ID() string {
	if w.Label != "" {
		return w.Label
	}
	return w.Name
}

// RunsOn says whether the workload applies to a target.
func (w Workload) RunsOn(t Target) bool {
	if len(t.Workloads) > 0 && !slices.Contains(t.Workloads, w.ID()) {
		return false
	}
	if len(w.Engines) == 0 {
		return true
	}
	for _, e := range w.Engines {
		if e == t.Name || (t.Engine != "" && e == t.Engine) {
			return true
		}
	}
	return false
}

// Scale overrides the data set and thread counts.
type Scale struct {
	Data map[string]any `yaml:"data" json:"data,omitempty"`
	// Options are set on every workload of the suite: another method the
	// suite can run on request (colenc-tpcc's server-isolation).
	Options    map[string]any `yaml:"options" json:"options,omitempty"`
	BufferPool string         `yaml:"buffer_pool" json:"buffer_pool,omitempty"`
	Threads    []int          `yaml:"threads" json:"threads,omitempty"`
	Note       string         `yaml:"note" json:"note,omitempty"`
}

// SeedSuites are the built-in suites that reproduce the four published
// reports, in the order encbench suite run seeds runs them.
func SeedSuites() []string { return []string{"tls", "tde", "colenc-tpcc", "colenc-sysbench"} }

// SeedsMark marks a directory as a seeds run's (suite run seeds).
const SeedsMark = "seeds.txt"

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtin lists the embedded suites by name with their descriptions.
func Builtin() ([]Suite, error) {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		return nil, fmt.Errorf("reading built-in suites: %w", err)
	}
	var out []Suite
	for _, e := range entries {
		s, _, err := load(strings.TrimSuffix(e.Name(), ".yaml"))
		if err != nil {
			return nil, err
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Load reads a built-in suite by name or a suite file by path, and returns
// it with the YAML text it came from.
func Load(nameOrFile string) (*Suite, []byte, error) {
	return load(nameOrFile)
}

func load(nameOrFile string) (*Suite, []byte, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", nameOrFile+".yaml"))
	source := "built-in suite " + nameOrFile
	if err != nil {
		data, err = os.ReadFile(nameOrFile)
		if err != nil {
			names := builtinNames()
			return nil, nil, errs.Usage("no suite %q: give a suite file or one of %s (encbench suite list)", nameOrFile, strings.Join(names, ", "))
		}
		source = nameOrFile
	}
	s, err := Parse(data)
	if err != nil {
		return nil, nil, errs.Usage("%s: %w", source, err)
	}
	return s, data, nil
}

func builtinNames() []string {
	entries, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// Parse reads a suite file strictly: unknown keys are errors that name
// their line.
func Parse(data []byte) (*Suite, error) {
	var s Suite
	if err := decode(data, &s); err != nil {
		return nil, err
	}
	s.source = data
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decode reads the YAML strictly. go-yaml 1.19.2 dereferences nil on some
// malformed tagged sequences (found by FuzzParse, kept in testdata): such
// a panic is bad input, reported as one line like any other.
func decode(data []byte, s *Suite) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML: the parser failed on it (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data), yaml.DisallowUnknownField(), yaml.Strict())
	if err := dec.Decode(s); err != nil {
		msg := firstLine(yaml.FormatError(err, false, false))
		if m := unknownField.FindStringSubmatch(msg); m != nil {
			msg += keyHint(m[1])
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// keyHint names the key a misspelt one was meant to be: suite-file keys
// are written with _ (the command line's flags with -).
func keyHint(key string) string {
	if key == "slice" {
		return ": the key is turn: (each variant's turn in an interleaved block, for example turn: 50ms)"
	}
	keys := suiteKeys()
	if alt := strings.ReplaceAll(key, "-", "_"); alt != key && slices.Contains(keys, alt) {
		return fmt.Sprintf(": suite-file keys are written with _, this one as %s", alt)
	}
	return errs.DidYouMean(key, keys)
}

// suiteKeys are the YAML keys of a suite file, at any depth.
func suiteKeys() []string {
	var keys []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" && !slices.Contains(keys, name) {
				keys = append(keys, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Suite]())
	return keys
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func (s *Suite) check() error {
	switch {
	case s.Name == "":
		return fmt.Errorf("the suite has no name")
	case len(s.Targets) == 0:
		return fmt.Errorf("the suite has no targets: list engines (sandboxes) or dsn entries")
	case len(s.Variants) == 0:
		return fmt.Errorf("the suite has no variants: list plain, tls, tde or tls+tde")
	case len(s.Workloads) == 0:
		return fmt.Errorf("the suite has no workloads")
	}
	if err := s.checkPrecision(); err != nil {
		return err
	}
	if s.Servers != "" && s.Servers != "own" && s.Servers != "shared" {
		return fmt.Errorf("%sservers %q: give own (a server per variant) or shared (TLS variants and aa on the baseline's server)", s.at("$.servers"), s.Servers)
	}
	if err := s.checkLoad(); err != nil {
		return err
	}
	if err := s.checkOrder(); err != nil {
		return err
	}
	if err := s.checkServerSettings(); err != nil {
		return err
	}
	for code, t := range s.Translations {
		if _, err := locale.Get(code); err != nil {
			return fmt.Errorf("translations: %w", err)
		}
		if len(t.Notes) > 0 && len(t.Notes) != len(s.Notes) {
			return fmt.Errorf("translations.%s has %d notes for the suite's %d: translate each note, in order", code, len(t.Notes), len(s.Notes))
		}
	}
	if err := s.checkTargets(); err != nil {
		return err
	}
	if err := s.checkVariants(); err != nil {
		return err
	}
	return s.checkWorkloads()
}

// checkTargets names each target (its engine by default) and checks the
// names are usable and unique.
func (s *Suite) checkTargets() error {
	seen := map[string]bool{}
	for i := range s.Targets {
		t := &s.Targets[i]
		if (t.Engine == "") == (t.DSN == "") && t.Engine == "" {
			return fmt.Errorf("target %d needs engine (a sandbox) or dsn", i+1)
		}
		if t.Name == "" {
			t.Name = t.Engine
		}
		if t.Name == "" {
			return fmt.Errorf("target %d (dsn) needs a name", i+1)
		}
		if !variant.ValidName(t.Name) {
			return fmt.Errorf("target name %q: use letters, digits, - and _", t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("two targets are named %q: give each a name", t.Name)
		}
		if t.DSN == "" && (t.TDEDSN != "" || t.TDEDatabase != "") {
			return fmt.Errorf("%starget %s: tde_dsn and tde_database go with dsn; a sandbox target gets a server with TDE on of its own", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name)
		}
		if t.TDEDSN != "" && t.TDEDatabase != "" {
			return fmt.Errorf("%starget %s: give tde_dsn (where tde variants run) or tde_database (encrypted copies on this server), not both", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name)
		}
		if t.DSN != "" && (t.Replicas != 0 || t.Sync) {
			return fmt.Errorf("%starget %s: replicas and sync shape a sandbox; a DSN names your cluster's hosts itself (host=a,b,c)", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name)
		}
		if t.Replicas < 0 || t.Replicas > 8 || t.Sync && t.Replicas == 0 {
			return fmt.Errorf("%starget %s: replicas %d, sync %v: give 1 to 8 replicas (sync: one of them synchronous)", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name, t.Replicas, t.Sync)
		}
		switch t.SessionAttrs {
		case "", "any", "read-write", "primary", "read-only", "standby", "prefer-standby":
		default:
			return fmt.Errorf("%starget %s: session_attrs %q: give any, read-write, primary, read-only, standby or prefer-standby", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name, t.SessionAttrs)
		}
		if t.SessionAttrs != "" && t.DSN == "" && t.Replicas == 0 {
			return fmt.Errorf("%starget %s: session_attrs chooses among a host list's servers: give replicas (a sandbox) or a dsn with several hosts", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name)
		}
		for _, id := range t.Workloads {
			if !slices.ContainsFunc(s.Workloads, func(w Workload) bool { return w.ID() == id }) {
				return fmt.Errorf("%starget %s: workloads names %q, which is no workload entry's label or name", s.at(fmt.Sprintf("$.targets[%d]", i)), t.Name, id)
			}
		}
		if t.Generators < 0 || t.Generators > 64 {
			return fmt.Errorf("target %s: generators %d: give 1 to 64 processes", t.Name, t.Generators)
		}
		seen[t.Name] = true
	}
	return nil
}

func (s *Suite) checkVariants() error {
	for i, v := range s.Variants {
		pv, err := variant.Parse(v)
		if err != nil {
			return fmt.Errorf("%s%v", s.at(fmt.Sprintf("$.variants[%d]", i)), err)
		}
		if pv.AA && i == 0 {
			return fmt.Errorf("%svariant aa is the baseline against itself: list the baseline first", s.at("$.variants[0]"))
		}
		if col, _ := colenc.Of(pv.Layers); col.Set != "" {
			if _, ok := s.ColumnSets[col.Set]; !ok {
				return fmt.Errorf("variant %s: no column set %q under column_sets", v, col.Set)
			}
		}
	}
	return nil
}

// checkWorkloads: each named, listed once (by label), in the suite's
// variants, with its data options under data:.
func (s *Suite) checkWorkloads() error {
	ids := map[string]bool{}
	for i := range s.Workloads {
		if err := s.Workloads[i].scriptEntry(); err != nil {
			return err
		}
	}
	for _, w := range s.Workloads {
		if w.Name == "" {
			return fmt.Errorf("a workload has no name")
		}
		if ids[w.ID()] {
			return fmt.Errorf("workload %s is listed twice: give the entries different labels", w.ID())
		}
		ids[w.ID()] = true
		for _, v := range w.Variants {
			if !slices.Contains(s.Variants, v) {
				return fmt.Errorf("workload %s: variant %s is not among the suite's variants", w.ID(), v)
			}
		}
		if w.Label != "" && !variant.ValidName(w.Label) {
			return fmt.Errorf("workload label %q: use letters, digits, - and _", w.Label)
		}
	}
	return nil
}

// ScriptWorkload is the workload a script: entry names.
const ScriptWorkload = "script"

// scriptEntry turns {script: tx.sql} into the script workload with the
// file as its --file option.
func (w *Workload) scriptEntry() error {
	if w.Script == "" {
		return nil
	}
	if w.Name != "" && w.Name != ScriptWorkload {
		return fmt.Errorf("workload %s gives a script too: an entry names a workload or a script", w.Name)
	}
	if _, given := w.Options["file"]; given {
		return fmt.Errorf("workload script %s: give the file as script: or as options.file, not both", w.Script)
	}
	w.Name = ScriptWorkload
	if w.Options == nil {
		w.Options = map[string]any{}
	}
	w.Options["file"] = w.Script
	if w.Label == "" {
		base := filepath.Base(w.Script)
		w.Label = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return nil
}

// Reference is a published measurement of the same method: its TPS loss %
// by variant and thread count, for one workload.
type Reference struct {
	Source   string                     `yaml:"source" json:"source"`
	Workload string                     `yaml:"workload" json:"workload"`
	Loss     map[string]map[int]float64 `yaml:"loss" json:"loss"`
	// ByWorkload holds losses of several workloads: workload -> variant ->
	// threads -> loss %.
	ByWorkload map[string]map[string]map[int]float64 `yaml:"by_workload" json:"by_workload,omitempty"`
	// Report names the published report ("R1" .. "R4") whose figures
	// these are, for the seeds report.
	Report string `yaml:"report" json:"report,omitempty"`
	// Bounds are losses a report states in words, not per cell (R1: "up
	// to 20% at low concurrency").
	Bounds []Bound `yaml:"bounds" json:"bounds,omitempty"`
	// Parts are a connection anatomy's published means, in ms, with the
	// layer off and on (R2): part -> "off" / "on" -> ms.
	Parts map[string]map[string]float64 `yaml:"parts" json:"parts,omitempty"`
	// PartsVariants are the suite's variants compared with PartsBaseline
	// against the published parts.
	PartsVariants []string `yaml:"parts_variants" json:"parts_variants,omitempty"`
	// TPS are the published throughputs behind the losses, where the
	// report gives them: workload -> variant (the baseline too) ->
	// threads -> TPS. With Little's law they give the time the report's
	// layer added to one transaction.
	TPS map[string]map[string]map[int]float64 `yaml:"tps" json:"tps,omitempty"`
	// Environment is the report's own setting, for projecting encbench's
	// costs to it.
	Environment *ReferenceEnvironment `yaml:"environment" json:"environment,omitempty"`
	// StandIn is the engine (and, for an anatomy, the variant) the seeds
	// report judges each published number against, and why.
	StandIn *StandIn `yaml:"stand_in" json:"stand_in,omitempty"`
	// Different names the published parts encbench does not time as the
	// report did, with the reason: part -> why.
	Different map[string]string `yaml:"different_measurement" json:"different_measurement,omitempty"`
	// Topology is a target of the suite shaped as the report's system
	// was (R2's replica set), where some parts time the work the report
	// timed: those are judged there instead of on the stand-in.
	Topology *Topology `yaml:"topology" json:"topology,omitempty"`
}

// Topology names the suite target that stands for the report's
// topology, the parts judged on it, and the parts that still differ.
type Topology struct {
	Target string   `yaml:"target" json:"target"`
	Parts  []string `yaml:"parts" json:"parts"`
	Why    string   `yaml:"why" json:"why"`
	// StillDifferent replaces Different for these parts: why the
	// topology does not make them the same work either.
	StillDifferent map[string]string `yaml:"still_different" json:"still_different,omitempty"`
}

// StandIn is the suite's engine (and variant) that stands for a
// report's system.
type StandIn struct {
	Engine  string `yaml:"engine" json:"engine"`
	Variant string `yaml:"variant" json:"variant,omitempty"`
	Why     string `yaml:"why" json:"why"`
}

// ReferenceEnvironment is the hardware a report ran on, from its own
// environment table, and the round-trip time between its client and
// server, which no report states: RTTMs is an assumption, said as such.
type ReferenceEnvironment struct {
	ClientCores int     `yaml:"client_cores" json:"client_cores"`
	ServerCores int     `yaml:"server_cores" json:"server_cores"`
	RTTMs       float64 `yaml:"rtt_ms" json:"rtt_ms"`
	// Said is the environment as the report gives it, for the reader.
	Said string `yaml:"said" json:"said"`
}

// Bound is a published claim that the loss is at most AtMost percent at
// the suite's lowest (Threads "lowest") or highest thread count, for every
// workload.
type Bound struct {
	Threads string  `yaml:"threads" json:"threads"`
	AtMost  float64 `yaml:"at_most" json:"at_most"`
}

// Losses lists the reference's (workload, variant -> threads -> loss).
func (r *Reference) Losses() map[string]map[string]map[int]float64 {
	out := map[string]map[string]map[int]float64{}
	for w, l := range r.ByWorkload {
		out[w] = l
	}
	if r.Workload != "" && len(r.Loss) > 0 {
		out[r.Workload] = r.Loss
	}
	return out
}

// at is "line N: " for a YAML path of the suite's source, or "" when the
// path is not found (a built-in default, an override).
func (s Suite) at(path string) string {
	if len(s.source) == 0 {
		return ""
	}
	p, err := yaml.PathString(path)
	if err != nil {
		return ""
	}
	f, err := parser.ParseBytes(s.source, 0)
	if err != nil {
		return ""
	}
	n, err := p.FilterFile(f)
	if err != nil || n == nil || n.GetToken() == nil {
		return ""
	}
	return fmt.Sprintf("line %d: ", n.GetToken().Position.Line)
}

// Catalogue is what a suite asks of the workloads it names; the workload
// registry answers it (suiterun's catalogue), so the suite's own rules
// need no workload code.
type Catalogue interface {
	// Entry checks one workload entry's options as the command line
	// would, in name order: an unknown workload is an error, a refused
	// option an *OptionError.
	Entry(workload string, options map[string]string) (Entry, error)
}

// Entry is what the catalogue says of one workload entry.
type Entry struct {
	// ReadOnly says whether the workload, made with the entry's options,
	// leaves the tables as it found them (an error: it cannot be made).
	ReadOnly func() (bool, error)
	// Has says an option applies to the workload.
	Has func(option string) bool
}

// OptionError is a workload entry's option the catalogue refused: one
// that does not apply to the workload (Err says whose it is), one that
// shapes the shared data set (Data), or one whose value is bad (Value).
type OptionError struct {
	Option      string
	Data, Value bool
	Err         error
}

func (e *OptionError) Error() string {
	if e.Err == nil {
		return "option " + e.Option + " shapes the data set"
	}
	return e.Err.Error()
}

// CheckOptions checks each workload entry against the catalogue: the name
// must be known and every option must apply to that workload, as on the
// command line; data options must apply to some workload.
func (s Suite) CheckOptions(cat Catalogue) error {
	used := map[string]bool{}
	for i := range s.Workloads {
		e, err := s.entry(cat, i)
		if err != nil {
			return err
		}
		for k := range s.Data {
			used[k] = used[k] || e.Has(k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(used)) {
		if !used[k] {
			return fmt.Errorf("%sdata option %s applies to none of the suite's workloads", s.at("$.data."+k), k)
		}
	}
	return nil
}

// entry checks workload entry i: an unknown name or a refused option is
// an error naming its line.
func (s Suite) entry(cat Catalogue, i int) (Entry, error) {
	w := s.Workloads[i]
	e, err := cat.Entry(w.Name, w.OptionStrings())
	var oe *OptionError
	switch {
	case err == nil:
		return e, nil
	case errors.As(err, &oe) && oe.Data:
		// One data set serves every workload: what only shapes it is
		// given once, under data:.
		return e, fmt.Errorf("%sworkload %s: %s shapes the data set, which every workload shares: set it in the suite's data: section",
			s.at(fmt.Sprintf("$.workloads[%d].options.%s", i, oe.Option)), w.ID(), oe.Option)
	case errors.As(err, &oe) && oe.Value:
		return e, fmt.Errorf("%sworkload %s, option %s: %v", s.at(fmt.Sprintf("$.workloads[%d].options.%s", i, oe.Option)), w.ID(), oe.Option, oe.Err)
	case errors.As(err, &oe):
		return e, fmt.Errorf("%s%v", s.at(fmt.Sprintf("$.workloads[%d].options.%s", i, oe.Option)), oe.Err)
	}
	return e, fmt.Errorf("%s%v", s.at(fmt.Sprintf("$.workloads[%d].name", i)), err)
}

// VariantOf parses one of the suite's variants; aa takes the baseline's
// (the first variant's) layers.
func (s Suite) VariantOf(name string) (variant.Variant, error) {
	v, err := variant.Parse(name)
	if err != nil || !v.AA || len(s.Variants) == 0 {
		return v, err
	}
	base, err := variant.Parse(s.Variants[0])
	return v.Against(base), err
}

// checkServerSettings refuses settings for an engine no sandbox target
// runs, and names or values a server file cannot hold.
func (s *Suite) checkServerSettings() error {
	for eng, set := range s.ServerSettings {
		if !slices.ContainsFunc(s.Targets, func(t Target) bool { return t.Engine == eng && t.DSN == "" }) {
			return fmt.Errorf("%sserver_settings.%s: no sandbox target runs %s (settings apply to sandboxes; a DSN server is configured by its owner)", s.at("$.server_settings"), eng, eng)
		}
		for name, value := range set {
			if err := serverconf.Check(name + "=" + value); err != nil {
				return fmt.Errorf("%sserver_settings.%s: %v", s.at("$.server_settings"), eng, err)
			}
		}
	}
	return nil
}

// SettingsFor are the suite's server settings for engine's sandboxes, as
// name=value in name order.
func (s *Suite) SettingsFor(engine string) []string {
	set := s.ServerSettings[engine]
	out := make([]string, 0, len(set))
	for _, name := range slices.Sorted(maps.Keys(set)) {
		out = append(out, name+"="+set[name])
	}
	return out
}
