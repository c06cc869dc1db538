package report

import (
	"errors"
	"slices"
	"sort"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
)

// Key identifies a row: a variant of a target, workload and thread count, across its repetitions.
type Key struct {
	Target   string
	Workload string
	Threads  int
	Variant  string
}

// Row is one key's repetitions summarised (a row of the report's
// tables), with its loss against the baseline variant of the same target,
// workload and threads.
type Row struct {
	Key
	Engine        string
	EngineVersion string
	Results       []*result.Result
	TPS           stats.Summary
	AvgMs         stats.Summary
	P95Ms         stats.Summary
	// CPU milliseconds per transaction; Server is nil when not measured.
	ClientMsPerTxn stats.Summary
	ServerMsPerTxn *stats.Summary
	ClientUtilPct  float64
	MachineUtilPct *float64
	// Loss of throughput against the baseline; nil for the baseline itself
	// or when either side has fewer than two repetitions.
	Loss       *stats.Loss
	LossReason string
	// LossErr is why Loss is nil (errNoBaseline, stats.ErrTooFew, ...).
	LossErr error
	// CPU per transaction against the baseline, in percent (ratio of means).
	ServerCPUChangePct *float64
	ClientCPUChangePct *float64
	// ServerUsAdded and ClientUsAdded are the CPU microseconds per
	// transaction the variant adds over the baseline, paired within blocks
	// like the loss; Server is nil when the server's CPU was not measured.
	ServerUsAdded *stats.Diff
	ClientUsAdded *stats.Diff
	// P95Added is the change of p95 latency in ms, paired within blocks.
	P95Added *stats.Diff
	// TimeAdded is the time the variant adds to one transaction, threads
	// / TPS (Little's law for a closed loop), in ms, paired within blocks.
	TimeAdded *stats.Diff
	// RetriesPerTxn are the extra tries of transactions that a conflict
	// rolled back, and GivenUpPerTxn the transactions that ended without
	// committing, each per committed transaction (TPC-C at SERIALIZABLE
	// retries; R3 reports committed transactions only).
	RetriesPerTxn, GivenUpPerTxn stats.Summary
	// Rate is the fixed offered load in transactions/s (0: closed loop,
	// as fast as the server goes).
	Rate     float64
	Verified bool
	Baseline bool
	// Costs are what a committed transaction takes of each resource, and
	// what the variant adds over the baseline (costMeasures' order).
	Costs []Cost
	// Busy is how loaded each resource was in the cell's turns, and Limit
	// what limited it by the report's rule (Limit* constants).
	Busy  Busy
	Limit string
	// pairBase and pairTPS are the baseline's and this row's TPS block
	// by block, when their results pair up.
	pairBase, pairTPS []float64
}

// errNoBaseline: the row's baseline variant did not run.
var errNoBaseline = errors.New("no baseline run")

// Aggregate groups results into rows and computes each variant's loss.
// order lists workloads, variants and targets as the suite did; names it
// does not know come after, in first-seen order.
func Aggregate(results []*result.Result, baseline string, order *Order) []*Row {
	byKey := map[Key]*Row{}
	for _, r := range results {
		k := Key{Target: targetOf(r), Workload: workloadOf(r), Threads: r.Threads, Variant: r.Variant.Name}
		c := byKey[k]
		if c == nil {
			c = &Row{Key: k, Engine: r.Engine.Kind, EngineVersion: r.Engine.Version, Verified: true, Baseline: k.Variant == baseline, Rate: r.RateLimit}
			byKey[k] = c
		}
		c.Results = append(c.Results, r)
		c.Verified = c.Verified && r.Variant.Verified.OK
	}
	rows := make([]*Row, 0, len(byKey))
	for _, c := range byKey {
		summarise(c)
		c.Costs = costsOf(nil, c, nil, nil)
		c.Busy = busyOf(c)
		c.Limit = limitOf(c.Busy)
		rows = append(rows, c)
	}
	order.learn(rows)
	sort.Slice(rows, func(i, j int) bool { return order.less(rows[i].Key, rows[j].Key) })
	for _, c := range rows {
		if c.Baseline {
			continue
		}
		bk := c.Key
		bk.Variant = baseline
		b := byKey[bk]
		if b == nil {
			c.LossReason, c.LossErr = "no "+baseline+" run to compare with", errNoBaseline
			continue
		}
		bs, cs := pairs(b, c)
		c.pairBase, c.pairTPS = tpsPairs(bs, cs)
		c.Costs = costsOf(b, c, bs, cs)
		l, err := lossOf(b, c)
		if err != nil {
			c.LossReason, c.LossErr = err.Error(), err
		} else {
			c.Loss = &l
		}
		c.ClientCPUChangePct = changePct(b.ClientMsPerTxn.Mean, c.ClientMsPerTxn.Mean)
		c.ClientUsAdded = usAdded(b, c, bs, cs, func(r *result.Result) (float64, bool) { return r.CPU.ClientSPerTxn, true })
		c.P95Added = added(b, c, bs, cs, func(r *result.Result) (float64, bool) { return r.LatencyMs.P95, true })
		c.TimeAdded = added(b, c, bs, cs, func(r *result.Result) (float64, bool) { return 1000 * float64(r.Threads) / r.TPS, r.TPS > 0 })
		if b.ServerMsPerTxn != nil && c.ServerMsPerTxn != nil {
			c.ServerCPUChangePct = changePct(b.ServerMsPerTxn.Mean, c.ServerMsPerTxn.Mean)
			c.ServerUsAdded = usAdded(b, c, bs, cs, func(r *result.Result) (float64, bool) {
				if r.CPU.ServerSPerTxn == nil {
					return 0, false
				}
				return *r.CPU.ServerSPerTxn, true
			})
		}
	}
	return rows
}

func changePct(base, v float64) *float64 {
	if base <= 0 {
		return nil
	}
	p := 100 * (v/base - 1)
	return &p
}

// usAdded is the variant's CPU per transaction minus the baseline's, in
// microseconds.
func usAdded(b, c *Row, bs, cs []*result.Result, perTxn func(*result.Result) (float64, bool)) *stats.Diff {
	return added(b, c, bs, cs, func(r *result.Result) (float64, bool) {
		v, ok := perTxn(r)
		return 1e6 * v, ok
	})
}

// added is the variant's value of a measure minus the baseline's: within
// blocks when the results pair up, else of the means.
func added(b, c *Row, bs, cs []*result.Result, value func(*result.Result) (float64, bool)) *stats.Diff {
	values := func(rs []*result.Result) []float64 {
		out := make([]float64, 0, len(rs))
		for _, r := range rs {
			if v, ok := value(r); ok {
				out = append(out, v)
			}
		}
		return out
	}
	var d stats.Diff
	var err error
	if xb, xc := values(bs), values(cs); bs != nil && len(xb) == len(bs) && len(xc) == len(cs) {
		d, err = stats.PairedDiff(xb, xc)
	} else {
		d, err = stats.DiffOfMeans(values(b.Results), values(c.Results))
	}
	if err != nil {
		return nil
	}
	return &d
}

// pairs matches the two cells' results by repetition (a block: the
// baseline and the variant run back to back) over the repetitions both
// have, at least two, each once; otherwise it returns nil.
func pairs(b, c *Row) (bs, cs []*result.Result) {
	ib, ic := stats.PairRepetitions(repetitions(b), repetitions(c))
	for k := range ib {
		bs, cs = append(bs, b.Results[ib[k]]), append(cs, c.Results[ic[k]])
	}
	return bs, cs
}

func repetitions(c *Row) []int {
	out := make([]int, len(c.Results))
	for i, r := range c.Results {
		out[i] = r.Repetition
	}
	return out
}

// tpsPairs are two paired result lists' TPS; nil when they do not pair.
func tpsPairs(bs, cs []*result.Result) (xb, xc []float64) {
	if bs == nil {
		return nil, nil
	}
	xb, xc = make([]float64, len(bs)), make([]float64, len(cs))
	for i := range bs {
		xb[i], xc[i] = bs[i].TPS, cs[i].TPS
	}
	return xb, xc
}

// lossOf is the paired loss when the results pair up by repetition, else
// the loss of the means: stats' rule, the one the suite's precision rule
// uses.
func lossOf(b, c *Row) (stats.Loss, error) {
	return stats.LossByRepetition(repetitions(b), tpsOf(b), repetitions(c), tpsOf(c))
}

func tpsOf(c *Row) []float64 {
	out := make([]float64, len(c.Results))
	for i, r := range c.Results {
		out[i] = r.TPS
	}
	return out
}

func summarise(c *Row) {
	var tps, avg, p95, cli, srv, util, mach, retries, givenUp []float64
	for _, r := range c.Results {
		tps = append(tps, r.TPS)
		if n := float64(r.Totals.Transactions); n > 0 {
			retries = append(retries, float64(r.Totals.Retries)/n)
			givenUp = append(givenUp, float64(r.Totals.FailedTotal())/n)
		}
		avg = append(avg, r.LatencyMs.Avg)
		p95 = append(p95, r.LatencyMs.P95)
		cli = append(cli, 1000*r.CPU.ClientSPerTxn)
		if r.CPU.ServerSPerTxn != nil {
			srv = append(srv, 1000**r.CPU.ServerSPerTxn)
		}
		util = append(util, r.CPU.ClientUtilPct)
		if r.CPU.MachineUtilPct != nil {
			mach = append(mach, *r.CPU.MachineUtilPct)
		}
	}
	// ErrTooFew only says the interval is a point; the mean stands.
	c.TPS, _ = stats.Summarize(tps)
	c.AvgMs, _ = stats.Summarize(avg)
	c.P95Ms, _ = stats.Summarize(p95)
	c.ClientMsPerTxn, _ = stats.Summarize(cli)
	c.RetriesPerTxn, _ = stats.Summarize(retries)
	c.GivenUpPerTxn, _ = stats.Summarize(givenUp)
	if len(srv) == len(c.Results) {
		s, _ := stats.Summarize(srv)
		c.ServerMsPerTxn = &s
	}
	u, _ := stats.Summarize(util)
	c.ClientUtilPct = u.Mean
	if len(mach) == len(c.Results) {
		m, _ := stats.Summarize(mach)
		c.MachineUtilPct = &m.Mean
	}
}

// Order is the suite's order of targets, workloads and variants.
type Order struct {
	Targets   []string
	Workloads []string
	Variants  []string
}

func (o *Order) learn(rows []*Row) {
	sort.Slice(rows, func(i, j int) bool { // first seen = earliest result
		return rows[i].Results[0].StartedAt < rows[j].Results[0].StartedAt
	})
	for _, c := range rows {
		if !slices.Contains(o.Targets, c.Target) {
			o.Targets = append(o.Targets, c.Target)
		}
		if !slices.Contains(o.Workloads, c.Workload) {
			o.Workloads = append(o.Workloads, c.Workload)
		}
		if !slices.Contains(o.Variants, c.Variant) {
			o.Variants = append(o.Variants, c.Variant)
		}
	}
}

func (o Order) less(a, b Key) bool {
	if x, y := slices.Index(o.Workloads, a.Workload), slices.Index(o.Workloads, b.Workload); x != y {
		return x < y
	}
	if x, y := slices.Index(o.Targets, a.Target), slices.Index(o.Targets, b.Target); x != y {
		return x < y
	}
	if a.Threads != b.Threads {
		return a.Threads < b.Threads
	}
	return slices.Index(o.Variants, a.Variant) < slices.Index(o.Variants, b.Variant)
}

// OrderOf takes the order from the suite's plan when there is one.
func (d *Data) Order() Order {
	var o Order
	if d.Record == nil || d.Record.Plan == nil {
		return o
	}
	for _, t := range d.Record.Suite.Targets {
		o.Targets = append(o.Targets, t.Name)
	}
	o.Workloads = d.Record.WorkloadNames()
	o.Variants = append(o.Variants, d.Record.Suite.Variants...)
	return o
}
