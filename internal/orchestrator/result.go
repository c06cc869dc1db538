package orchestrator

import (
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/procfs"

	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/version"
)

// assemble turns a runner outcome into the result document; Run fills in
// target, engine, variant and workload.
func assemble(o *runner.Outcome, cfg runner.Config, started time.Time) *result.Result {
	secs := o.Elapsed.Seconds()
	q := o.Reads + o.Writes + o.Others
	r := &result.Result{
		Schema:    result.Schema,
		Tool:      result.Tool{Name: "encbench", Version: version.String()},
		StartedAt: started.UTC().Format(time.RFC3339),
		Partial:   o.Partial,
		Threads:   cfg.Threads,
		DurationS: round(secs, 4),
		WarmupS:   cfg.Warmup.Seconds(),
		RateLimit: cfg.Rate,
		Totals: result.Totals{
			Transactions: o.Txns,
			Queries:      result.Queries{Read: o.Reads, Write: o.Writes, Other: o.Others, Total: q},
			Errors:       o.Errors,
			Reconnects:   o.Reconnects,
			Failed:       o.Failed,
			Retried:      o.Retried,
			Retries:      o.Retries,
			ErrorCodes:   o.ErrorCodes,
		},
		Environment: environment(),
	}
	if secs > 0 {
		r.TPS = round(float64(o.Txns)/secs, 2)
		r.QPS = round(float64(q)/secs, 2)
	}
	// Interleaved turns: the work done while each turn's gate was open,
	// not the drain after it (see runner.Turn).
	if w := o.Window.Seconds(); w > 0 && o.Txns > 0 {
		r.TPS = round(o.Work/w, 2)
		r.QPS = round(float64(q)*o.Work/float64(o.Txns)/w, 2)
		r.TurnsS = round(w, 4)
	}
	r.LatencyMs = result.LatencyOf(o.Hist)
	if enc, err := result.EncodeHistogram(o.Hist); err == nil {
		r.Histogram = enc
	}
	r.CPU = cpuOf(o, cfg, secs)
	for _, iv := range o.Intervals {
		r.Intervals = append(r.Intervals, result.Interval{
			TS: round(iv.At.Seconds(), 3), TPS: round(iv.TPS, 2), QPS: round(iv.QPS, 2),
			P95Ms: iv.Pct, Errors: round(iv.Errors, 2), Failed: round(iv.Failed, 2), Retries: round(iv.Retries, 2),
			Reconnects: round(iv.Reconn, 2),
		})
	}
	r.Fairness = fairness(o)
	for name, h := range o.Parts {
		if h.TotalCount() == 0 {
			continue
		}
		if r.Parts == nil {
			r.Parts = map[string]result.PartLatency{}
		}
		r.Parts[name] = result.PartLatency{N: h.TotalCount(), Mean: round(h.Mean()/1000, 4),
			P50: measure.Ms(h.ValueAtQuantile(50)), P95: measure.Ms(h.ValueAtQuantile(95)),
			P99: measure.Ms(h.ValueAtQuantile(99)), Max: measure.Ms(h.Max())}
	}
	r.Notes = o.Notes
	r.Traffic, r.ServerIO = trafficOf(o), serverIOOf(o)
	return r
}

func perTxn(v int64, txns int64) float64 {
	if txns <= 0 {
		return 0
	}
	return round(float64(v)/float64(txns), 3)
}

func trafficOf(o *runner.Outcome) *result.Traffic {
	t := o.Traffic
	if t == nil {
		return nil
	}
	return &result.Traffic{BytesIn: t.BytesIn, BytesOut: t.BytesOut, RoundTrips: t.RoundTrips,
		BytesInPerTxn: perTxn(t.BytesIn, o.Txns), BytesOutPerTxn: perTxn(t.BytesOut, o.Txns), RoundTripsPerTxn: perTxn(t.RoundTrips, o.Txns)}
}

func lockWaitsOf(o *runner.Outcome, source string) *result.LockWaits {
	w := o.LockWaits
	if w == nil {
		return nil
	}
	ms := w.Time.Seconds() * 1000
	l := &result.LockWaits{Waits: w.Waits, WaitMs: round(ms, 3), WaitsPerTxn: perTxn(w.Waits, o.Txns), Source: source}
	if o.Txns > 0 {
		l.WaitMsPerTxn = round(ms/float64(o.Txns), 4)
	}
	return l
}

func serverIOOf(o *runner.Outcome) *result.ServerIO {
	if o.ServerIO == nil {
		return nil
	}
	s := &result.ServerIO{StorageReadBytes: o.ServerIO.Read, StorageWriteBytes: o.ServerIO.Written,
		StorageReadBytesPerTxn: perTxn(o.ServerIO.Read, o.Txns), StorageWriteBytesPerTxn: perTxn(o.ServerIO.Written, o.Txns)}
	if d := o.Disk; d != nil {
		s.Disk = &result.DiskUse{Device: d.Name, ReadBytes: d.Read, WriteBytes: d.Written,
			ReadBytesPerTxn: perTxn(d.Read, o.Txns), WriteBytesPerTxn: perTxn(d.Written, o.Txns), BusyPct: round(d.BusyPct, 2)}
	}
	return s
}

// cpuOf is the run's CPU: encbench's, the server's and the machine's,
// in seconds, per transaction and as shares of the machine.
func cpuOf(o *runner.Outcome, cfg runner.Config, secs float64) result.CPU {
	cores := runtime.NumCPU()
	c := result.CPU{ClientS: round(o.ClientCPU.Seconds(), 3), MachineCores: cores, ServerPID: cfg.ServerPID, MemberPIDs: cfg.MemberPIDs, ClientCPUs: cfg.CPUs}
	if secs > 0 {
		c.ClientUtilPct = round(100*o.ClientCPU.Seconds()/secs/float64(cores), 2)
	}
	if o.Txns > 0 {
		c.ClientSPerTxn = o.ClientCPU.Seconds() / float64(o.Txns)
	}
	if o.ServerCPU != nil {
		s := round(o.ServerCPU.Seconds(), 3)
		c.ServerS = &s
		if secs > 0 {
			u := round(100*s/secs/float64(cores), 2)
			c.ServerUtilPct = &u
		}
		if o.Txns > 0 {
			per := s / float64(o.Txns)
			c.ServerSPerTxn = &per
		}
	}
	if o.MachineUtil != nil {
		u := round(*o.MachineUtil, 2)
		c.MachineUtilPct = &u
	}
	if o.StealPct != nil {
		u := round(*o.StealPct, 2)
		c.StealPct = &u
	}
	if o.ForeignCPU != nil && secs > 0 {
		u := round(100*o.ForeignCPU.Seconds()/secs/float64(cores), 2)
		c.ForeignUtilPct = &u
	}
	return c
}

func fairness(o *runner.Outcome) result.Fairness {
	n := float64(len(o.WorkerEvents))
	if n == 0 {
		return result.Fairness{}
	}
	var se, sb float64
	for i := range o.WorkerEvents {
		se += float64(o.WorkerEvents[i])
		sb += o.WorkerBusy[i].Seconds()
	}
	me, mb := se/n, sb/n
	var ve, vb float64
	for i := range o.WorkerEvents {
		ve += math.Pow(float64(o.WorkerEvents[i])-me, 2)
		vb += math.Pow(o.WorkerBusy[i].Seconds()-mb, 2)
	}
	return result.Fairness{EventsAvg: round(me, 4), EventsStddev: round(math.Sqrt(ve/n), 2), ExecAvgS: round(mb, 4), ExecStddevS: round(math.Sqrt(vb/n), 2)}
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// environment describes the machine encbench runs on.
func environment() result.Environment {
	env := result.Environment{Cores: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS}
	env.Host, _ = os.Hostname()
	env.Kernel = measure.Kernel()
	env.Disk = measure.Disk(".")
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if ci, err := fs.CPUInfo(); err == nil && len(ci) > 0 {
			env.CPUModel = ci[0].ModelName
		}
		if mi, err := fs.Meminfo(); err == nil && mi.MemTotal != nil {
			env.MemoryMB = int64(*mi.MemTotal / 1024)
		}
	}
	if data, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				env.OS = strings.Trim(v, `"`)
			}
		}
	}
	return env
}
