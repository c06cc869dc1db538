// Package workload defines workload families and their registry. A family
// (oltp, tpcc, ycsb, connect) owns its options and builds workloads;
// engines and the CLI never know which family they are running.
package workload

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
)

// Counters are one event's statements by kind, filled by the worker.
type Counters struct {
	Reads, Writes, Others int64
	// Parts are the durations of the event's timed parts, in the order of
	// Capabilities.Parts; the worker points it at its own array.
	Parts []time.Duration
}

// Worker runs events on one connection it owns, with its own prepared
// statements and random source.
type Worker interface {
	// Event runs one transaction, adding the statements it sent to c.
	Event(c *Counters) error
	// Abort undoes a failed event (for example ROLLBACK). With retry the
	// next Event runs the same transaction again with the same input (the
	// same random draws, pgbench's --max-tries); without, a new one.
	Abort(retry bool) error
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

// CheckResult is one consistency condition and whether the data meets it.
type CheckResult struct {
	ID        string `json:"id"`
	Condition string `json:"condition"`
	OK        bool   `json:"ok"`
	Detail    string `json:"detail"`
	// NotApplicable: the condition holds only in a state the data is not
	// in (TPC-C 3.3.2.11 right after the initial population); OK is true.
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// Pacer is a worker that waits between events (TPC-C keying and think
// times); the runner sleeps outside the measured latency.
type Pacer interface {
	Pause() time.Duration
}

// RunDefaults are options whose workload runs best with other runner
// defaults than sysbench's (TPC-C repeats a transaction rolled back by a
// conflict until it commits).
type RunDefaults interface {
	// DefaultMaxTries is --max-tries' default (0: no limit).
	DefaultMaxTries() int
}

// Partitioned is a workload whose generators must not collide when
// several share a run (YCSB's insert keys): generator index of count.
type Partitioned interface {
	Partition(index, count int)
}

// Noter is a worker that counts things beyond statements (TLS handshakes,
// resumed sessions); the runner adds up every worker's notes at the end.
type Noter interface {
	Notes() map[string]int64
}

// ServerEncrypted is a workload whose non-key text columns a server-side
// column layer (layer.ServerColumns) can encrypt: it stores them in the
// layer's type and writes and reads them through the layer's functions.
type ServerEncrypted interface {
	// UseServerColumns makes the workload's statements carry out l.
	UseServerColumns(l layer.ServerColumns) error
	// ServerColumns are the columns it encrypts, for the layer's proof.
	ServerColumns() []layer.Column
}
