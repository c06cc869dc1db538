package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/stats"
)

// costMeasure is one resource a committed transaction (a connection, for
// the connect workload) takes, read from a result; false: not measured.
type costMeasure struct {
	Name   string
	digits int
	value  func(*result.Result) (float64, bool)
}

// costMeasures are the columns of the cost table, in its order.
var costMeasures = []costMeasure{
	{"client_us", 1, func(r *result.Result) (float64, bool) { return 1e6 * r.CPU.ClientSPerTxn, r.Totals.Transactions > 0 }},
	{"server_us", 1, func(r *result.Result) (float64, bool) {
		if r.CPU.ServerSPerTxn == nil {
			return 0, false
		}
		return 1e6 * *r.CPU.ServerSPerTxn, true
	}},
	{"round_trips", 2, func(r *result.Result) (float64, bool) {
		if r.Traffic == nil {
			return 0, false
		}
		return r.Traffic.RoundTripsPerTxn, true
	}},
	{"bytes_out", 0, func(r *result.Result) (float64, bool) {
		if r.Traffic == nil {
			return 0, false
		}
		return r.Traffic.BytesOutPerTxn, true
	}},
	{"bytes_in", 0, func(r *result.Result) (float64, bool) {
		if r.Traffic == nil {
			return 0, false
		}
		return r.Traffic.BytesInPerTxn, true
	}},
	{"storage_read_kb", 2, func(r *result.Result) (float64, bool) {
		if r.ServerIO == nil {
			return 0, false
		}
		return r.ServerIO.StorageReadBytesPerTxn / 1024, true
	}},
	{"disk_read_kb", 2, func(r *result.Result) (float64, bool) {
		if r.ServerIO == nil || r.ServerIO.Disk == nil {
			return 0, false
		}
		return r.ServerIO.Disk.ReadBytesPerTxn / 1024, true
	}},
	{"disk_write_kb", 2, func(r *result.Result) (float64, bool) {
		if r.ServerIO == nil || r.ServerIO.Disk == nil {
			return 0, false
		}
		return r.ServerIO.Disk.WriteBytesPerTxn / 1024, true
	}},
	{"retries", 3, func(r *result.Result) (float64, bool) {
		if r.Totals.Transactions <= 0 {
			return 0, false
		}
		return float64(r.Totals.Retries+r.Totals.FailedTotal()) / float64(r.Totals.Transactions), true
	}},
	// Lock waits where the engine counts them (InnoDB); PostgreSQL and
	// MongoDB keep no such count, so theirs are not measured.
	{"lock_waits", 3, lockWaitsPer(func(w *result.LockWaits) float64 { return w.WaitsPerTxn })},
	{"lock_wait_ms", 3, lockWaitsPer(func(w *result.LockWaits) float64 { return w.WaitMsPerTxn })},
	// A replicated server's: how long the primary's WAL took to reach the
	// slowest replica's disk (what a synchronous commit waits for) and to
	// be applied there, means while the primary wrote, and how far its
	// replay fell behind.
	// MySQL/MariaDB positions are GTIDs: lag in transactions, and the
	// semi-synchronous commits' wait as the flush lag; no replay time.
	{"flush_lag_ms", 3, replicasMax(flushRead, func(x result.ReplicaLag) float64 { return x.MeanFlushLagMs })},
	{"replay_lag_ms", 3, replicasMax(walPositions, func(x result.ReplicaLag) float64 { return x.MeanReplayLagMs })},
	{"wal_behind_kb", 1, replicasMax(walPositions, func(x result.ReplicaLag) float64 { return float64(x.MaxLagBytes) / 1024 })},
	{"txns_behind", 0, replicasMax(gtidPositions, func(x result.ReplicaLag) float64 { return float64(x.MaxLagTransactions) })},
}

// flushRead: PostgreSQL reports every replica's flush lag; MySQL and
// MariaDB have a commit's wait only when a replica is semi-synchronous.
func flushRead(r *result.Replication) bool {
	return !r.GTID || slices.ContainsFunc(r.Replicas, func(x result.ReplicaLag) bool { return x.Sync == "semi-sync" })
}
func walPositions(r *result.Replication) bool  { return !r.GTID }
func gtidPositions(r *result.Replication) bool { return r.GTID }

// replicasMax is a replication figure of the replica where it is
// largest; not measured on a server without replicas.
func replicasMax(read func(*result.Replication) bool, f func(result.ReplicaLag) float64) func(*result.Result) (float64, bool) {
	return func(r *result.Result) (float64, bool) {
		if r.Replication == nil || len(r.Replication.Replicas) == 0 || !read(r.Replication) {
			return 0, false
		}
		v := f(r.Replication.Replicas[0])
		for _, x := range r.Replication.Replicas[1:] {
			v = max(v, f(x))
		}
		return v, true
	}
}

// lockWaitsPer reads a lock wait figure, not measured without the count.
func lockWaitsPer(f func(*result.LockWaits) float64) func(*result.Result) (float64, bool) {
	return func(r *result.Result) (float64, bool) {
		if r.LockWaits == nil {
			return 0, false
		}
		return f(r.LockWaits), true
	}
}

// Cost is a row's figure for one measure, over its blocks, and what the
// variant adds to it over the baseline (paired within blocks when the
// results pair up). Value is nil when some result did not measure it.
type Cost struct {
	Measure string         `json:"measure"`
	Value   *stats.Summary `json:"value,omitempty"`
	Added   *stats.Diff    `json:"added,omitempty"`
}

// costsOf measures every cost of c; with a baseline b (bs and cs its
// pairs), also what c adds.
func costsOf(b, c *Row, bs, cs []*result.Result) []Cost {
	out := make([]Cost, 0, len(costMeasures))
	for _, m := range costMeasures {
		k := Cost{Measure: m.Name}
		var x []float64
		for _, r := range c.Results {
			if v, ok := m.value(r); ok {
				x = append(x, v)
			}
		}
		if len(x) == len(c.Results) && len(x) > 0 {
			s, _ := stats.Summarize(x)
			k.Value = &s
			if b != nil {
				k.Added = added(b, c, bs, cs, m.value)
			}
		}
		out = append(out, k)
	}
	return out
}

// cost is the row's figure for a measure.
func (c *Row) cost(name string) Cost {
	for _, k := range c.Costs {
		if k.Measure == name {
			return k
		}
	}
	return Cost{Measure: name}
}

// Busy is how loaded each resource was during a row's own measured
// windows (its turns), in percent, averaged over its blocks; nil: not
// measured. Client and Server are shares of the CPUs each was pinned to
// (all the machine's when not pinned); NetworkWait is the share of a
// transaction's time spent in the round trips' added delay.
type Busy struct {
	Client      float64  `json:"client_cpu_pct"`
	Server      *float64 `json:"server_cpu_pct,omitempty"`
	Machine     *float64 `json:"machine_cpu_pct,omitempty"`
	Disk        *float64 `json:"disk_pct,omitempty"`
	NetworkWait *float64 `json:"network_wait_pct,omitempty"`
	// SharedCPUs: client and server ran on the same CPUs.
	SharedCPUs bool `json:"shared_cpus,omitempty"`
	// Contention is retries and given-up transactions per committed one,
	// LockWait the share of a transaction's time spent waiting for locks
	// (nil: the server counts no lock waits).
	Contention float64  `json:"contention"`
	LockWait   *float64 `json:"lock_wait_pct,omitempty"`
}

// busyOf averages the busy shares over c's results.
func busyOf(c *Row) Busy {
	var b Busy
	var server, machine, disk, wait, locks []float64
	n := 0
	for _, r := range c.Results {
		// CPU is read over each turn with its drain (the events in flight
		// finishing after the gate closed), which DurationS holds and
		// TurnsS does not.
		secs := r.DurationS
		if secs <= 0 {
			continue
		}
		n++
		clientCPUs, serverCPUs := cpusOf(r)
		// CPU time is read in 10 ms ticks, so a short window's share can
		// pass 100%.
		b.Client += min(100, 100*r.CPU.ClientS/secs/float64(len(clientCPUs)))
		b.SharedCPUs = b.SharedCPUs || overlap(clientCPUs, serverCPUs)
		if r.CPU.ServerS != nil {
			server = append(server, min(100, 100**r.CPU.ServerS/secs/float64(len(serverCPUs))))
		}
		if r.CPU.MachineUtilPct != nil {
			machine = append(machine, *r.CPU.MachineUtilPct)
		}
		if r.ServerIO != nil && r.ServerIO.Disk != nil {
			disk = append(disk, r.ServerIO.Disk.BusyPct)
		}
		if r.Traffic != nil && r.LatencyMs.Avg > 0 {
			rtt := 0.0
			if r.Network != nil {
				rtt = r.Network.RTTMs
			}
			wait = append(wait, min(100, 100*r.Traffic.RoundTripsPerTxn*rtt/r.LatencyMs.Avg))
		}
		if r.LockWaits != nil && r.LatencyMs.Avg > 0 {
			locks = append(locks, min(100, 100*r.LockWaits.WaitMsPerTxn/r.LatencyMs.Avg))
		}
		if t := r.Totals.Transactions; t > 0 {
			b.Contention += float64(r.Totals.Retries+r.Totals.FailedTotal()) / float64(t)
		}
	}
	if n == 0 {
		return b
	}
	b.Client /= float64(n)
	b.Contention /= float64(n)
	b.Server, b.Machine, b.Disk, b.NetworkWait = meanIfAll(server, n), meanIfAll(machine, n), meanIfAll(disk, n), meanIfAll(wait, n)
	b.LockWait = meanIfAll(locks, n)
	return b
}

// meanIfAll is x's mean when every one of the n results gave a value.
func meanIfAll(x []float64, n int) *float64 {
	if len(x) != n {
		return nil
	}
	m := mean(x)
	return &m
}

// cpusOf are the CPUs the client and the server ran on: those they were
// pinned to, or all of the machine's.
func cpusOf(r *result.Result) (client, server []int) {
	all := make([]int, max(r.CPU.MachineCores, 1))
	for i := range all {
		all[i] = i
	}
	client, server = r.CPU.ClientCPUs, all
	if len(client) == 0 {
		client = all
	}
	if s, err := runset.CPUList(r.CPU.ServerCPUs, math.MaxInt); err == nil && len(s) > 0 {
		server = s
	}
	return client, server
}

func overlap(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// The limits a cell can have, and the rule that names them: the first
// that holds, in this order.
const (
	LimitContention = "contention"
	LimitServerCPU  = "server_cpu"
	LimitClientCPU  = "client_cpu"
	LimitSharedCPU  = "shared_cpu"
	LimitDisk       = "disk"
	LimitNetwork    = "network"
	LimitLatency    = "latency"
)

// The thresholds of the rule, in percent.
const (
	cpuBound        = 85.0
	diskBound       = 80.0
	networkBound    = 50.0
	contentionBound = 5.0
	lockWaitBound   = 50.0
)

// limitOf names what limited a cell's throughput by the rule the report
// states (limit.rule).
func limitOf(b Busy) string {
	switch {
	case 100*b.Contention >= contentionBound, b.LockWait != nil && *b.LockWait >= lockWaitBound:
		return LimitContention
	case b.Server != nil && *b.Server >= cpuBound && !b.SharedCPUs:
		return LimitServerCPU
	case b.Client >= cpuBound && !b.SharedCPUs:
		return LimitClientCPU
	case b.SharedCPUs && b.Machine != nil && *b.Machine >= cpuBound:
		return LimitSharedCPU
	case b.Disk != nil && *b.Disk >= diskBound:
		return LimitDisk
	case b.NetworkWait != nil && *b.NetworkWait >= networkBound:
		return LimitNetwork
	}
	return LimitLatency
}

func pct(l *locale.Lang, v *float64) string {
	if v == nil {
		return l.T("cost.not_measured")
	}
	return l.F("%.0f%%", *v)
}

// limitText is the cell's limit with the shares that named it.
func limitText(l *locale.Lang, c *Row) string {
	b := c.Busy
	client := l.F("%.0f%%", b.Client)
	switch c.Limit {
	case LimitContention:
		if b.LockWait != nil {
			return l.T("limit.contention_locks", l.F("%.3f", b.Contention), pct(l, b.LockWait))
		}
		return l.T("limit.contention", l.F("%.3f", b.Contention))
	case LimitServerCPU:
		return l.T("limit.server_cpu", pct(l, b.Server), client)
	case LimitClientCPU:
		return l.T("limit.client_cpu", client, pct(l, b.Server))
	case LimitSharedCPU:
		return l.T("limit.shared_cpu", pct(l, b.Machine), pct(l, b.Server), client)
	case LimitDisk:
		return l.T("limit.disk", pct(l, b.Disk))
	case LimitNetwork:
		return l.T("limit.network", pct(l, b.NetworkWait))
	}
	return l.T("limit.latency", pct(l, b.Server), client)
}

// usText is an added CPU cost in microseconds, "+21.0 us [18.1, 23.9]".
func usText(l *locale.Lang, d *stats.Diff) string {
	return l.T("limit.us", l.F("%+.1f", d.Mean), l.F("%+.1f", d.Low), l.F("%+.1f", d.High))
}

// moved says whether an added cost is one: significant and above zero.
func moved(d *stats.Diff) bool { return d != nil && d.Significant && d.Mean > 0 }

// limitSentence says, for a cell, what limited it and, for a variant,
// which added cost moved its throughput and which did not.
func limitSentence(l *locale.Lang, c *Row) string {
	head := l.T("limit.cell", c.Target, c.Threads, c.Variant, limitText(l, c))
	if c.Baseline {
		return head
	}
	cli, srv := c.cost("client_us").Added, c.cost("server_us").Added
	var effect string
	switch c.Limit {
	case LimitServerCPU, LimitClientCPU:
		bound, other := srv, cli
		boundName, otherName := l.T("limit.server"), l.T("limit.client")
		if c.Limit == LimitClientCPU {
			bound, other, boundName, otherName = cli, srv, otherName, boundName
		}
		switch {
		case moved(bound) && moved(other):
			effect = l.T("limit.effect.both", boundName, usText(l, bound), otherName, usText(l, other))
		case moved(bound):
			effect = l.T("limit.effect.bound", boundName, usText(l, bound))
		case moved(other):
			effect = l.T("limit.effect.other", otherName, usText(l, other), boundName)
		case c.Loss == nil || !c.Loss.Significant:
			effect = l.T("limit.effect.still")
		default:
			effect = l.T("limit.effect.none")
		}
	case LimitSharedCPU:
		effect = l.T("limit.effect.shared", orNA(l, cli), orNA(l, srv))
	case LimitLatency:
		effect = l.T("limit.effect.latency", orNA(l, cli), orNA(l, srv), diffText(l, c.cost("round_trips").Added))
	case LimitNetwork:
		effect = l.T("limit.effect.network", diffText(l, c.cost("round_trips").Added))
	case LimitDisk:
		effect = l.T("limit.effect.disk", diffText(l, c.cost("disk_write_kb").Added), diffText(l, c.cost("disk_read_kb").Added))
	case LimitContention:
		effect = l.T("limit.effect.contention")
	}
	return head + ": " + effect
}

func orNA(l *locale.Lang, d *stats.Diff) string {
	if d == nil {
		return l.T("na")
	}
	return usText(l, d)
}

// costTable is what each cell takes per committed transaction (per
// connection for connect), and what a variant adds over the baseline, with
// 95% intervals; "not measured" where the target cannot say (a server of
// the user's has no process here to read).
func costTable(l *locale.Lang, rows []*Row) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.threads"), l.T("col.variant")}}
	for _, m := range costMeasures {
		t.Head = append(t.Head, l.T("cost."+m.Name))
	}
	t.Head = append(t.Head, l.T("cost.limit"))
	for _, c := range rows {
		row := []Text{{S: c.Target}, {S: strconv.Itoa(c.Threads)}, {S: c.Variant}}
		for i, m := range costMeasures {
			k := c.Costs[i]
			cell := Text{S: l.T("cost.not_measured")}
			if k.Value != nil {
				cell.S = l.F("%.*f", m.digits, k.Value.Mean)
				if k.Added != nil {
					cell.S = l.T("cost.cell", cell.S, l.T("ci.range", l.F("%+.*f", m.digits, k.Added.Mean), l.F("%+.*f", m.digits, k.Added.Low), l.F("%+.*f", m.digits, k.Added.High)))
					cell.Strong = k.Added.Significant
				}
			}
			row = append(row, cell)
		}
		row = append(row, Text{S: l.T("limit.short." + c.Limit)})
		t.Rows = append(t.Rows, row)
	}
	return t
}

// costsIntro is the cost table's introduction: per connection for a
// workload whose event opens one (its parts have a connect role).
func costsIntro(rows []*Row) string {
	for _, c := range rows {
		for _, r := range c.Results {
			for _, p := range r.Workload.Parts {
				if p.Role == "connect" {
					return "costs.intro.connection"
				}
			}
		}
	}
	return "costs.intro"
}
