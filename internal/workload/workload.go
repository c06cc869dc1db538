// Package workload defines workload families and their registry. A family
// (oltp, later tpcc, ycsb, connect) owns its options and builds workloads;
// engines and the CLI never know which family they are running.
package workload

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	result "github.com/encbench/encbench/internal/resultdoc"
)

// Counters are one event's statements by kind, filled by the worker.
type Counters struct {
	Reads, Writes, Others int64
	// Items are the durations of the event's named parts (see Itemized),
	// in the order of ItemNames; the worker points it at its own array.
	Items []time.Duration
}

// Itemized is a workload whose events have parts timed on their own (for
// example connect and first query); the runner keeps a histogram of each.
type Itemized interface {
	ItemNames() []string
}

// Noter is a worker that counts things beyond statements (TLS handshakes,
// resumed sessions); the runner adds up every worker's notes at the end.
type Noter interface {
	Notes() map[string]int64
}

// TargetUser is a workload whose workers open connections of their own.
type TargetUser interface {
	UseTarget(t engine.Target)
}

// EventBound is a workload that is a fixed number of repetitions by
// default (the connect workload), rather than a time.
type EventBound interface {
	DefaultEvents() int64
}

// Worker runs events on one connection it owns, with its own prepared
// statements and random source.
type Worker interface {
	// Event runs one transaction, adding the statements it sent to c.
	Event(c *Counters) error
	// Abort undoes a failed event (for example ROLLBACK) before a retry.
	Abort() error
	Close() error
}

// Env is what a workload's prepare and cleanup phases get.
type Env struct {
	Target  engine.Target
	Threads int
	Force   bool
	// TDE asks prepare to store the tables encrypted at rest.
	TDE bool
	Log io.Writer
}

// TableSuffix is what follows CREATE TABLE (...): the dialect's options
// plus, with TDE, the server's own syntax for an encrypted table.
func (e Env) TableSuffix(ctx context.Context, c engine.Conn) (string, error) {
	suffix := e.Target.Engine.Dialect().TableOptions
	if !e.TDE {
		return suffix, nil
	}
	ar, ok := e.Target.Engine.(engine.AtRest)
	if !ok {
		return "", errs.Usage("%s servers cannot store tables encrypted", e.Target.Engine.Kind())
	}
	opt, err := ar.TDETableOption(ctx, c)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(suffix + " " + opt), nil
}

// Connect opens a connection to the environment's target.
func (e Env) Connect(ctx context.Context) (engine.Conn, error) {
	return e.Target.Engine.Connect(ctx, e.Target)
}

// Workload is one named workload with its options fixed.
type Workload interface {
	Name() string
	// Tables are the tables the workload creates and uses.
	Tables() []string
	// Params are the options that shaped the run, for the result document.
	Params() map[string]any
	Validate(threads int) error
	Prepare(ctx context.Context, env Env) error
	Cleanup(ctx context.Context, env Env) error
	// NewWorker prepares a worker's statements on conn. id is 0-based.
	NewWorker(ctx context.Context, conn engine.Conn, d engine.Dialect, id, threads int) (Worker, error)
}

// Describer is a workload that can describe its schema for reports.
type Describer interface {
	Schema() string
}

// Family builds workloads that share options.
type Family interface {
	// Names lists the workloads of the family with a one-line description.
	Names() map[string]string
	// BindFlags registers the family's options on fs.
	BindFlags(fs *pflag.FlagSet)
	// New returns the named workload using the options bound on fs.
	New(name string) (Workload, error)
}

type registry struct {
	mu       sync.RWMutex
	families []func() Family
}

// families holds constructors registered by init functions; each command
// builds fresh families, so no option value is shared between commands.
var families = &registry{}

// Register adds a family constructor.
func Register(newFamily func() Family) {
	families.mu.Lock()
	defer families.mu.Unlock()
	families.families = append(families.families, newFamily)
}

// Families returns fresh instances of every registered family.
func Families() []Family {
	families.mu.RLock()
	defer families.mu.RUnlock()
	out := make([]Family, 0, len(families.families))
	for _, f := range families.families {
		out = append(out, f())
	}
	return out
}

// Lookup finds the family that owns a workload name among fams.
func Lookup(fams []Family, name string) (Family, error) {
	var all []string
	for _, f := range fams {
		for n := range f.Names() {
			if n == name {
				return f, nil
			}
			all = append(all, n)
		}
	}
	sort.Strings(all)
	if name == "" {
		return nil, errs.Usage("no workload given: pass --workload NAME (one of %s)", strings.Join(all, ", "))
	}
	return nil, errs.Usage("unknown workload %q: use one of %s", name, strings.Join(all, ", "))
}

// Describe lists every workload as "name  description" lines.
func Describe(fams []Family) string {
	var lines []string
	for _, f := range fams {
		for n, d := range f.Names() {
			lines = append(lines, fmt.Sprintf("  %-24s %s", n, d))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// CheckResult is one consistency condition and whether the data meets it.
type CheckResult struct {
	ID        string `json:"id"`
	Condition string `json:"condition"`
	OK        bool   `json:"ok"`
	Detail    string `json:"detail"`
}

// Checker is a workload whose data has consistency conditions (TPC-C 3.3.2).
type Checker interface {
	Check(ctx context.Context, env Env) ([]CheckResult, error)
}

// Pacer is a worker that waits between events (TPC-C keying and think
// times); the runner sleeps outside the measured latency.
type Pacer interface {
	Pause() time.Duration
}

// Rater derives workload rates (tpmC) from per-part counts.
type Rater interface {
	Rates(items map[string]int64, seconds float64) map[string]float64
}

// Encrypter is a workload that encrypts columns in the client. Its proof
// reads stored values raw from the server and checks they are ciphertext.
type Encrypter interface {
	ProveColumns(ctx context.Context, c engine.Conn) (*result.ColencProof, error)
}

// EncryptFlagger names the option with which a workload's encrypted
// columns are chosen (--encrypt-columns, --encrypt).
type EncryptFlagger interface {
	EncryptFlag() string
}

// KeyUser is a workload that encrypts columns with the keys named by the
// command line's --master-key-file and --keyset (bound once for every family).
type KeyUser interface {
	UseKeys(p colenc.Paths)
}

// Explainable is a workload whose statements are SQL the server can
// EXPLAIN (--explain).
type Explainable interface {
	ExplainSQL() bool
}

// PredicatePlacer is an encrypting workload that says where its predicate
// runs on a server of this dialect (server, IN list, client-side filter).
type PredicatePlacer interface {
	PredicatePlacement(d engine.Dialect) string
}
