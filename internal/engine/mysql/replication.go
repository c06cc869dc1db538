package mysql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

var _ engine.ReplicationReader = Engine{}

// WatchReplicas (engine.ReplicationReader): a MySQL or MariaDB primary
// knows where its binary log is but not how far each replica has applied
// it, so the watch keeps a session on the primary (read-write, the first
// such host of the DSN's list) and one on every other host of the list
// that answers; nil when the DSN names one host or no replica answers.
// Each session is the benchmark account's and reads only what any
// account may: GTID positions and the semi-synchronous counters.
func (Engine) WatchReplicas(ctx context.Context, t engine.Target) (engine.ReplicaWatch, error) {
	list := hosts(t.URL)
	if len(list) < 2 {
		return nil, nil
	}
	pt := t
	u := *t.URL
	q := u.Query()
	q.Set(attrsParam, "read-write")
	u.RawQuery = q.Encode()
	pt.URL = &u
	primary, host, err := connectAny(ctx, pt)
	if err != nil {
		return nil, err
	}
	w := &replicaWatch{primary: primary}
	for _, h := range list {
		if h == host {
			continue
		}
		c, err := connectOne(ctx, hostTarget(t, h))
		if err != nil {
			continue // a replica that is down is not watched
		}
		name := h
		if rows, err := c.Query(ctx, "SELECT @@global.report_host"); err == nil && len(rows) == 1 && rows[0][0] != "" && rows[0][0] != "NULL" {
			name = rows[0][0]
		}
		w.replicas = append(w.replicas, watchedReplica{name: name, c: c})
	}
	if len(w.replicas) == 0 {
		primary.Close()
		return nil, nil
	}
	return w, nil
}

type watchedReplica struct {
	name string
	c    *conn
}

type replicaWatch struct {
	primary  *conn
	replicas []watchedReplica
	// The primary's semi-synchronous totals at the sample before.
	waitUs, waits int64
}

func (*replicaWatch) GTID() bool { return true }

func (*replicaWatch) Source() string {
	return "the primary's @@gtid_binlog_pos and Rpl_semi_sync_master_tx_wait_time / _tx_waits, each replica's @@gtid_slave_pos and Rpl_semi_sync_slave_status (the hosts of the DSN's list)"
}

func (w *replicaWatch) Close() error {
	err := w.primary.Close()
	for _, r := range w.replicas {
		err = errors.Join(err, r.c.Close())
	}
	return err
}

// Read samples the primary, then each replica: a replica read after the
// primary can only be nearer to it than at the primary's read, so the lag
// is never overstated by the order.
func (w *replicaWatch) Read(ctx context.Context) ([]engine.ReplicaState, int64, error) {
	pos, err := queryOne(ctx, w.primary, "SELECT @@global.gtid_binlog_pos")
	if err != nil {
		return nil, 0, err
	}
	primary, err := parseGTIDs(pos)
	if err != nil {
		return nil, 0, err
	}
	status, err := statusValues(ctx, w.primary, "Rpl_semi_sync_master_status", "Rpl_semi_sync_master_tx_wait_time", "Rpl_semi_sync_master_tx_waits")
	if err != nil {
		return nil, 0, err
	}
	semiSync := status["rpl_semi_sync_master_status"] == "ON"
	waitUs, _ := strconv.ParseInt(status["rpl_semi_sync_master_tx_wait_time"], 10, 64)
	waits, _ := strconv.ParseInt(status["rpl_semi_sync_master_tx_waits"], 10, 64)
	var wait time.Duration
	if n := waits - w.waits; n > 0 && w.waits > 0 {
		wait = time.Duration((waitUs-w.waitUs)/n) * time.Microsecond
	}
	w.waitUs, w.waits = waitUs, waits
	var total int64
	for _, seq := range primary {
		total += seq
	}
	out := make([]engine.ReplicaState, 0, len(w.replicas))
	for _, r := range w.replicas {
		applied, err := queryOne(ctx, r.c, "SELECT @@global.gtid_slave_pos")
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.name, err)
		}
		seqs, err := parseGTIDs(applied)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.name, err)
		}
		st := engine.ReplicaState{Name: r.name, SyncState: "async"}
		for domain, seq := range primary {
			st.LagTransactions += max(seq-seqs[domain], 0)
		}
		if semiSync {
			rs, err := statusValues(ctx, r.c, "Rpl_semi_sync_slave_status")
			if err == nil && rs["rpl_semi_sync_slave_status"] == "ON" {
				st.SyncState, st.FlushLag = "semi-sync", wait
			}
		}
		out = append(out, st)
	}
	return out, total, nil
}

// parseGTIDs reads a GTID position ("0-1-1234,1-2-7": domain, server,
// sequence number) into each domain's sequence number.
func parseGTIDs(s string) (map[string]int64, error) {
	out := map[string]int64{}
	if s == "" || s == "NULL" {
		return out, nil
	}
	for _, g := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 {
			return nil, fmt.Errorf("cannot read GTID %q (want domain-server-sequence; a MySQL server's GTID sets are not read yet)", g)
		}
		seq, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cannot read GTID %q: %w", g, err)
		}
		out[parts[0]] = seq
	}
	return out, nil
}

func queryOne(ctx context.Context, c *conn, q string) (string, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return "", fmt.Errorf("%s: no single value", q)
	}
	return rows[0][0], nil
}

// statusValues reads global status variables by name, keyed in lower
// case (servers differ in the case they report).
func statusValues(ctx context.Context, c engine.Conn, names ...string) (map[string]string, error) {
	rows, err := c.Query(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", strings.Join(names, ", "), err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if len(r) == 2 {
			out[strings.ToLower(r[0])] = r[1]
		}
	}
	return out, nil
}
