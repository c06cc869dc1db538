package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// Options are a family's typed options. Bind registers, on fs, the flags
// that apply to one of the family's workloads, pointing into the struct;
// a flag it does not bind for that workload is a usage error there.
type Options interface {
	Bind(fs *pflag.FlagSet, workload string)
}

// Family builds the workloads that share one set of options.
type Family interface {
	// Name is the family's name in help and errors (oltp, tpcc, ...).
	Name() string
	// Workloads lists the family's workloads with a one-line description.
	Workloads() map[string]string
	// NewOptions returns a new options value; binding it to flags sets
	// its defaults (DefaultOptions).
	NewOptions() Options
	// New builds the named workload from options of NewOptions' type.
	New(name string, o Options) (Workload, error)
}

// Workload is one named workload with its options fixed.
type Workload interface {
	Name() string
	// Capabilities declare what the workload can do beyond running.
	Capabilities() Capabilities
	// Tables are the tables the workload creates and uses.
	Tables() []string
	// Params are the options that shaped the run, for the result document.
	Params() map[string]any
	// Schema describes the tables for reports.
	Schema() string
	Validate(threads int) error
	Prepare(ctx context.Context, env Env) error
	Cleanup(ctx context.Context, env Env) error
	NewWorker(ctx context.Context, env WorkerEnv) (Worker, error)
}

// WorkerEnv is what one worker is built with. The worker owns Conn.
type WorkerEnv struct {
	Conn    engine.Conn
	Dialect engine.Dialect
	// Target opens connections of the worker's own (connect workload).
	Target engine.Target
	// ID is 0-based, of Threads.
	ID, Threads int
	// Previous is the worker this one replaces after its connection was
	// lost: the new worker carries on its random sequence, so a reconnect
	// does not start the draws over.
	Previous Worker
}

// Part is a timed part of an event, kept in a histogram of its own.
type Part struct {
	Name  string
	Label string
	// Role tells reports what the part stands for, where it matters to a
	// conclusion: RoleConnect, RoleHandshake (within the connect),
	// RoleConnectFirst (connect plus first query), RoleSteady (a query on a
	// reused connection); "" for none.
	Role string
}

// Part roles reports draw conclusions from.
const (
	RoleConnect      = "connect"
	RoleHandshake    = "handshake"
	RoleConnectFirst = "connect_first_query"
	RoleSteady       = "steady"
)

// Capabilities is one declaration of a workload's abilities; a nil
// function means the workload cannot do that.
type Capabilities struct {
	// Parts are the event's timed parts in the order events fill
	// Counters.Parts; reports show them in this order with these labels.
	Parts []Part
	// DefaultEvents, when > 0, is the number of events of a run that gives
	// neither a time nor an event limit (connect, YCSB operationcount).
	DefaultEvents int64
	// ExplainSQL: the statements are SQL the server can EXPLAIN.
	ExplainSQL bool
	// ReadOnly: a run leaves the tables as it found them. A suite runs
	// the blocks of read-only workloads before those that write, so reads
	// meet the data as loaded (unset: the workload is taken to write).
	ReadOnly bool
	// EncryptOption names the option that chooses encrypted columns.
	EncryptOption string
	// Check verifies consistency conditions on the server's data.
	Check func(ctx context.Context, env Env) ([]CheckResult, error)
	// ProveColumns reads stored values raw and checks they are ciphertext;
	// the proof says where predicates run on target t's server.
	ProveColumns func(ctx context.Context, c engine.Conn, t engine.Target) (*ColencProof, error)
	// Rates derives workload rates (tpmC) from per-part counts.
	Rates func(parts map[string]int64, seconds float64) map[string]float64
}

// Registry maps workload names to the families that own them.
type Registry struct {
	mu       sync.RWMutex
	families []Family
	owner    map[string]Family
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{owner: map[string]Family{}} }

// Add registers a family; a workload name or family name already taken is
// refused.
func (r *Registry) Add(f Family) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.families {
		if g.Name() == f.Name() {
			return fmt.Errorf("workload family %q is registered twice", f.Name())
		}
	}
	for n := range f.Workloads() {
		if g, ok := r.owner[n]; ok {
			return fmt.Errorf("workload %q of family %s is registered already by family %s", n, f.Name(), g.Name())
		}
	}
	r.families = append(r.families, f)
	for n := range f.Workloads() {
		r.owner[n] = f
	}
	return nil
}

// defaultRegistry is filled by the families' init functions and only read
// afterwards.
var defaultRegistry = NewRegistry()

// Register adds a family to the process's registry. A duplicate is a
// programming error found at start-up, so it panics.
func Register(f Family) {
	if err := defaultRegistry.Add(f); err != nil {
		panic(err)
	}
}

// Default is the process's registry.
func Default() *Registry { return defaultRegistry }

// Lookup finds the family that owns a workload name.
func (r *Registry) Lookup(name string) (Family, error) {
	r.mu.RLock()
	f, ok := r.owner[name]
	r.mu.RUnlock()
	if ok {
		return f, nil
	}
	all := strings.Join(r.Names(), ", ")
	if name == "" {
		return nil, errs.Usage("no workload given: name one of %s", all)
	}
	return nil, errs.Usage("unknown workload %q%s: use one of %s", name, errs.DidYouMean(name, r.Names()), all)
}

// Names lists every workload name, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.owner))
}

// Describe lists every workload as "name  description" lines.
func (r *Registry) Describe() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var lines []string
	for _, f := range r.families {
		for n, d := range f.Workloads() {
			lines = append(lines, fmt.Sprintf("  %-24s %s", n, d))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// DefaultOptions are a workload's options with every default set (binding
// the options to flags is what sets them).
func DefaultOptions(f Family, workload string) Options {
	o := f.NewOptions()
	o.Bind(pflag.NewFlagSet(workload, pflag.ContinueOnError), workload)
	return o
}

// FlagSet returns a flag set holding exactly the flags of one workload,
// bound to o (which must come from the workload's family).
func FlagSet(o Options, workload string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(workload, pflag.ContinueOnError)
	o.Bind(fs, workload)
	return fs
}

// Owners maps every workload option's flag name to the workloads it
// applies to, for errors about a flag given to the wrong workload.
func (r *Registry) Owners() map[string][]string {
	out := map[string][]string{}
	for _, n := range r.Names() {
		f, _ := r.Lookup(n)
		FlagSet(f.NewOptions(), n).VisitAll(func(fl *pflag.Flag) {
			out[fl.Name] = append(out[fl.Name], n)
		})
	}
	return out
}

// NotApplicable is the usage error for a flag of other workloads.
func NotApplicable(flag, workload string, owners []string) error {
	return errs.Usage("--%s does not apply to %s: it is an option of %s", flag, workload, strings.Join(owners, ", "))
}
