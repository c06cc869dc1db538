package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// costly is a result with the resources one transaction took: client and
// server CPU in microseconds, round trips, and the client's and the
// server's busy shares of their pinned CPU.
func costly(variant string, rep int, clientUs, serverUs, trips, clientBusy, serverBusy float64) *result.Result {
	r := fake(variant, 8, rep, 1000)
	r.TurnsS, r.DurationS = 10, 10
	setTPS(r, 1000)
	srv := serverUs / 1e6
	r.CPU = result.CPU{ClientSPerTxn: clientUs / 1e6, ServerSPerTxn: &srv, ClientCPUs: []int{0}, ServerCPUs: "1", MachineCores: 2,
		ClientS: clientBusy / 100 * r.DurationS, ServerS: ptr(serverBusy / 100 * r.DurationS)}
	r.Traffic = &result.Traffic{RoundTripsPerTxn: trips, BytesOutPerTxn: 300, BytesInPerTxn: 900}
	return r
}

func ptr(v float64) *float64 { return &v }

// setTPS gives r a throughput, with the transactions it took over its
// duration.
func setTPS(r *result.Result, tps float64) {
	r.TPS = tps
	r.Totals.Transactions = int64(math.Round(tps * r.DurationS))
}

// TestCostsNameWhatLimitedTheCellAndWhatMovedIt: a server at 97% of its
// CPU limits the cell; the server's added microseconds moved throughput,
// the client's did not. A DSN-like result without traffic or server
// figures shows them as not measured.
func TestCostsNameWhatLimitedTheCellAndWhatMovedIt(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 4; rep++ {
		j := float64(rep) / 10
		rs = append(rs, costly("plain", rep, 50+j, 900+j, 20, 40, 97), costly("tls", rep, 71+2*j, 906+3*j, 20, 45, 97))
	}
	rows := Aggregate(rs, "plain", &Order{})
	l := english(t)
	var tls *Row
	for _, c := range rows {
		if c.Limit != LimitServerCPU {
			t.Errorf("%s: limit %q, want server CPU (busy %+v)", c.Variant, c.Limit, c.Busy)
		}
		if c.Variant == "tls" {
			tls = c
		}
	}
	if tls == nil {
		t.Fatal("no tls row")
	}
	cli := tls.cost("client_us").Added
	if cli == nil || cli.Mean < 20 || cli.Mean > 23 || !cli.Significant {
		t.Errorf("client us added %+v, want about +21.5", cli)
	}
	s := limitSentence(l, tls)
	for _, want := range []string{"server CPU-bound", "the server's extra +6.5 us", "lowered throughput", "the client's extra +21.2 us", "did not"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	tbl := costTable(l, rows)
	if len(tbl.Rows) != 2 || len(tbl.Head) != 3+len(costMeasures)+1 {
		t.Fatalf("cost table %d rows, head %q", len(tbl.Rows), tbl.Head)
	}
	// The lock columns, where the engine counts no lock waits.
	for _, row := range tbl.Rows {
		if got := row[3+len(costMeasures)-1].S; got != "not measured" {
			t.Errorf("lock wait ms without a count shown as %q", got)
		}
	}
	// An empty Order leaves the rows' order to the map they came from.
	for _, row := range tbl.Rows {
		if row[2].S == "plain" {
			if got := row[3+2].S; got != "20.00" {
				t.Errorf("round trips of plain shown as %q", got)
			}
		}
	}

	// A server of the user's: no server CPU, traffic or I/O figures.
	dsn := costly("plain", 1, 50, 900, 20, 40, 0)
	dsn.CPU.ServerSPerTxn, dsn.CPU.ServerS, dsn.Traffic = nil, nil, nil
	d := Aggregate([]*result.Result{dsn}, "plain", &Order{})
	row := costTable(l, d).Rows[0]
	for i, m := range costMeasures {
		want := m.Name != "client_us" && m.Name != "retries"
		if got := row[3+i].S == l.T("cost.not_measured"); got != want {
			t.Errorf("%s shown as %q on a DSN target", m.Name, row[3+i].S)
		}
	}
	if d[0].Limit != LimitLatency {
		t.Errorf("a cell with nothing saturated: limit %q", d[0].Limit)
	}
}

// TestLimitRuleOrder: contention comes first, shared CPUs are judged by
// the machine's share, and a delay that takes most of a transaction's
// time is the network.
func TestLimitRuleOrder(t *testing.T) {
	for _, tc := range []struct {
		b    Busy
		want string
	}{
		{Busy{Client: 99, Server: ptr(99), Contention: 0.2}, LimitContention},
		{Busy{Client: 60, Server: ptr(40), Machine: ptr(95), SharedCPUs: true}, LimitSharedCPU},
		{Busy{Client: 90, Server: ptr(99), SharedCPUs: true, Machine: ptr(50)}, LimitLatency},
		{Busy{Client: 90, Server: ptr(50)}, LimitClientCPU},
		{Busy{Client: 10, Server: ptr(20), Disk: ptr(90)}, LimitDisk},
		{Busy{Client: 10, Server: ptr(20), NetworkWait: ptr(70)}, LimitNetwork},
	} {
		if got := limitOf(tc.b); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}

// TestCostsShowLockWaitsWhereCounted: lock waits per transaction and
// their time, with what the variant adds, paired within blocks.
func TestCostsShowLockWaitsWhereCounted(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 4; rep++ {
		j := float64(rep) / 100
		p, v := costly("plain", rep, 50, 900, 20, 40, 50), costly("tde", rep, 52, 950, 20, 40, 50)
		p.LockWaits = &result.LockWaits{WaitsPerTxn: 0.10 + j, WaitMsPerTxn: 0.020 + j/10, Source: "test"}
		v.LockWaits = &result.LockWaits{WaitsPerTxn: 0.15 + j, WaitMsPerTxn: 0.030 + j/10, Source: "test"}
		rs = append(rs, p, v)
	}
	rows := Aggregate(rs, "plain", &Order{})
	for _, c := range rows {
		if c.Variant != "tde" {
			continue
		}
		w := c.cost("lock_waits")
		if w.Value == nil || math.Abs(w.Value.Mean-0.175) > 1e-9 || w.Added == nil || math.Abs(w.Added.Mean-0.05) > 1e-9 {
			t.Errorf("lock waits %+v added %+v, want 0.175 and +0.050", w.Value, w.Added)
		}
		ms := c.cost("lock_wait_ms")
		if ms.Added == nil || math.Abs(ms.Added.Mean-0.010) > 1e-9 {
			t.Errorf("lock wait ms added %+v, want +0.010", ms.Added)
		}
		row := costTable(english(t), []*Row{c}).Rows[0]
		at := slices.IndexFunc(costMeasures, func(m costMeasure) bool { return m.Name == "lock_waits" })
		if got := row[3+at].S; !strings.HasPrefix(got, "0.175; +0.050") {
			t.Errorf("lock waits shown as %q", got)
		}
		return
	}
	t.Fatal("no tde row")
}

// TestLockWaitsNameContention: transactions that spend most of their time
// waiting for row locks are contention-bound even without retries.
func TestLockWaitsNameContention(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		r := costly("plain", rep, 50, 900, 20, 30, 40)
		r.LatencyMs.Avg = 2
		r.LockWaits = &result.LockWaits{WaitsPerTxn: 0.9, WaitMsPerTxn: 1.5}
		rs = append(rs, r)
	}
	c := Aggregate(rs, "plain", &Order{})[0]
	if c.Limit != LimitContention || c.Busy.LockWait == nil || math.Abs(*c.Busy.LockWait-75) > 1e-9 {
		t.Fatalf("limit %q, busy %+v: want contention at 75%% lock wait", c.Limit, c.Busy)
	}
	if s := limitSentence(english(t), c); !strings.Contains(s, "75% of a transaction's time waiting for locks") {
		t.Errorf("sentence %q does not name the lock waits", s)
	}
}

// Replication figures are a replicated server's: the slowest replica's,
// and not measured where a result has no replica.
func TestCostsShowReplicationWhereThereIsOne(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		p, v := costly("plain", rep, 50, 900, 20, 40, 50), costly("tls-repl", rep, 52, 950, 20, 40, 50)
		v.Replication = &result.Replication{Replicas: []result.ReplicaLag{{Name: "a", MeanFlushLagMs: 0.5}, {Name: "b", MeanFlushLagMs: 0.8, MaxLagBytes: 2048}}}
		rs = append(rs, p, v)
	}
	for _, c := range Aggregate(rs, "plain", &Order{}) {
		f := c.cost("flush_lag_ms")
		switch c.Variant {
		case "tls-repl":
			if f.Value == nil || math.Abs(f.Value.Mean-0.8) > 1e-9 || c.cost("wal_behind_kb").Value.Mean != 2 {
				t.Errorf("flush lag %+v, want the slower replica's 0.8 ms", f.Value)
			}
		case "plain":
			if f.Value != nil {
				t.Errorf("a server without replicas shows a flush lag: %+v", f.Value)
			}
		}
	}
}

// MySQL and MariaDB positions are GTIDs: lag in transactions, never WAL
// bytes or a replay time; a commit's wait only where a replica is
// semi-synchronous (an asynchronous one's 0 is no measurement).
func TestCostsOfGTIDReplication(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		a, s := costly("async", rep, 50, 900, 20, 40, 50), costly("semi", rep, 52, 950, 20, 40, 50)
		a.Replication = &result.Replication{GTID: true, Replicas: []result.ReplicaLag{{Name: "r1", Sync: "async", MaxLagTransactions: 3}}}
		s.Replication = &result.Replication{GTID: true, Replicas: []result.ReplicaLag{{Name: "r1", Sync: "semi-sync", MeanFlushLagMs: 0.2, MaxLagTransactions: 1}}}
		rs = append(rs, a, s)
	}
	for _, c := range Aggregate(rs, "async", &Order{}) {
		if c.cost("wal_behind_kb").Value != nil || c.cost("replay_lag_ms").Value != nil {
			t.Errorf("%s: WAL bytes or a replay time shown for GTID replication", c.Variant)
		}
		if v := c.cost("txns_behind").Value; v == nil {
			t.Errorf("%s: no transactions behind", c.Variant)
		}
		flush := c.cost("flush_lag_ms").Value
		if c.Variant == "async" && flush != nil {
			t.Errorf("an asynchronous replica shows a commit wait: %+v", flush)
		}
		if c.Variant == "semi" && (flush == nil || math.Abs(flush.Mean-0.2) > 1e-9) {
			t.Errorf("a semi-synchronous replica's commit wait: %+v", flush)
		}
	}
}
