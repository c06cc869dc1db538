// Package runset is a run's settings as the command line, the spec and
// the runner all read them: one struct, bound to flags once (by spec) and
// run by the runner as it is, so no layer copies it field by field.
package runset

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Settings is how a phase runs: its limits, its error policy and where
// its workers run. The duration limits are whole seconds on the command
// line (sysbench's --time, --warmup-time and --report-interval).
type Settings struct {
	Time           time.Duration
	Events         int64
	Warmup         time.Duration
	Rate           float64
	ReportInterval time.Duration
	Percentile     float64
	// MaxTries is how often a transaction that failed with a serialization
	// failure or deadlock is tried with the same input (pgbench's
	// --max-tries): 1 never retries, 0 retries until the run ends.
	MaxTries int
	// IgnoreErrors are the errors that fail a transaction without stopping
	// the run, as given ("" is the engine's sysbench list).
	IgnoreErrors string
	// ReconnectTimeout bounds every wait for the server: a reconnect after
	// a lost connection (with back-off), a new connection, and the workers'
	// last events after the run's end.
	ReconnectTimeout time.Duration
	// MaxReconnects bounds how many lost connections one worker replaces
	// in a run (0: no limit).
	MaxReconnects int
	// ReconnectPerTxn opens a new connection (and prepares the workload's
	// statements again) for every transaction, like pgbench -C.
	ReconnectPerTxn bool
	// ClientCPUs pins worker threads, as a CPU list ("0,1", "0-3").
	ClientCPUs string
	// NetDelay, NetJitter and NetBandwidth (KB/s) put an emulated network
	// between the workers and the server; NetCutAfter cuts every worker
	// connection through it once it has been open this long (a fault).
	NetDelay, NetJitter time.Duration
	NetBandwidth        int64
	NetCutAfter         time.Duration
	// Generator is "I/N": this run is load generator I (from 0) of N that
	// share the threads; StartAt (RFC3339) is their common start.
	Generator, StartAt string
	// Repetition is the repetition number recorded in the result.
	Repetition int
}

// Seconds is a duration given in whole seconds on the command line (a
// pflag.Value): it prints back as the integer it was given.
type Seconds struct{ D *time.Duration }

func (s Seconds) String() string {
	if s.D == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*s.D/time.Second), 10)
}

func (s Seconds) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number of seconds", v)
	}
	*s.D = time.Duration(n) * time.Second
	return nil
}

func (Seconds) Type() string { return "int" }

// CPUList reads a CPU list such as "0,1" or "0-3,6" (the kernel's cpuset
// form); CPUs must be below limit.
func CPUList(s string, limit int) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= limit {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
