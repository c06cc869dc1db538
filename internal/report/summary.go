// Package report renders results for people: the sysbench-style text
// summary of one run (and, in later issues, suite reports).
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/result"
)

// Summary writes sysbench 1.0.20's final statistics layout, with encbench's
// extra percentiles and CPU lines.
func Summary(w io.Writer, r *result.Result) {
	secs := r.DurationS
	per := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	q := r.Totals.Queries
	fmt.Fprintf(w, "SQL statistics:\n")
	fmt.Fprintf(w, "    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %d\n", q.Read)
	fmt.Fprintf(w, "        write:                           %d\n", q.Write)
	fmt.Fprintf(w, "        other:                           %d\n", q.Other)
	fmt.Fprintf(w, "        total:                           %d\n", q.Total)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", r.Totals.Transactions, r.TPS)
	fmt.Fprintf(w, "    queries:                             %-6d (%.2f per sec.)\n", q.Total, r.QPS)
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", r.Totals.Errors, per(r.Totals.Errors))
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", r.Totals.Reconnects, per(r.Totals.Reconnects))
	failed := r.Totals.FailedTotal()
	byKind := ""
	if failed > 0 {
		byKind = ": " + countsText(r.Totals.Failed)
	}
	fmt.Fprintf(w, "    failed transactions:                 %-6d (%.2f per sec.)%s\n", failed, per(failed), byKind)
	fmt.Fprintf(w, "    retried transactions:                %-6d (%d retries)\n", r.Totals.Retried, r.Totals.Retries)
	if len(r.Totals.ErrorCodes) > 0 {
		fmt.Fprintf(w, "    errors by code:                      %s\n", countsText(r.Totals.ErrorCodes))
	}
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", secs)
	fmt.Fprintf(w, "    total number of events:              %d\n", r.Totals.Transactions)
	l := r.LatencyMs
	fmt.Fprintf(w, "\nLatency (ms):\n")
	for _, row := range []struct {
		name string
		v    float64
	}{{"min", l.Min}, {"avg", l.Avg}, {"max", l.Max}, {"50th percentile", l.P50}, {"95th percentile", l.P95}, {"99th percentile", l.P99}, {"99.9th percentile", l.P999}, {"sum", l.Sum}} {
		fmt.Fprintf(w, "         %-18s %22.2f\n", row.name+":", row.v)
	}
	f := r.Fairness
	fmt.Fprintf(w, "\nThreads fairness:\n")
	fmt.Fprintf(w, "    events (avg/stddev):           %.4f/%.2f\n", f.EventsAvg, f.EventsStddev)
	fmt.Fprintf(w, "    execution time (avg/stddev):   %.4f/%.2f\n", f.ExecAvgS, f.ExecStddevS)
	c := r.CPU
	fmt.Fprintf(w, "\nCPU (seconds):\n")
	fmt.Fprintf(w, "    client:                              %.2f (%.1f%% of the machine, %.1f us per transaction)\n", c.ClientS, c.ClientUtilPct, c.ClientSPerTxn*1e6)
	if c.ServerS != nil {
		fmt.Fprintf(w, "    server:                              %.2f (%.1f%% of the machine, %.1f us per transaction)\n", *c.ServerS, deref(c.ServerUtilPct), deref(c.ServerSPerTxn)*1e6)
	} else {
		fmt.Fprintf(w, "    server:                              unknown (pass --server-pid for a local server)\n")
	}
	summaryProofs(w, r)
	if len(r.Rates) > 0 {
		for _, k := range slices.Sorted(maps.Keys(r.Rates)) {
			fmt.Fprintf(w, "%s: %.1f\n", k, r.Rates[k])
		}
	}
	if g := r.Regime; g != nil {
		kind := "in memory"
		if g.IOBound {
			kind = "I/O-bound"
		}
		fmt.Fprintf(w, "Regime: data set %.1f MiB, buffer pool %.1f MiB, ratio %.2f (%s)\n",
			float64(g.DataBytes)/(1<<20), float64(g.BufferPoolBytes)/(1<<20), g.Ratio, kind)
	}
	if rp := r.Replication; rp != nil {
		fmt.Fprintf(w, "Replication (%s; %d samples, %d while the primary wrote):\n", rp.Source, rp.Samples, rp.Writing)
		for _, x := range rp.Replicas {
			if rp.GTID {
				// No replay time is read on MySQL/MariaDB; the flush lag is
				// the semi-synchronous commits' wait for an acknowledgement.
				fmt.Fprintf(w, "    %s (%s): commit wait for the replica mean %.2f ms (max %.2f), up to %d transactions behind\n",
					x.Name, x.Sync, x.MeanFlushLagMs, x.MaxFlushLagMs, x.MaxLagTransactions)
				continue
			}
			fmt.Fprintf(w, "    %s (%s): flush lag mean %.2f ms (max %.2f), replay lag mean %.2f ms (max %.2f), up to %d bytes of WAL behind\n",
				x.Name, x.Sync, x.MeanFlushLagMs, x.MaxFlushLagMs, x.MeanReplayLagMs, x.MaxReplayLagMs, x.MaxLagBytes)
		}
	}
	items(w, r)
	if r.Partial {
		fmt.Fprintln(w, "\nPARTIAL RESULT: the run was interrupted before its time or event limit.")
	}
}

// countsText lists counts by name: "deadlock 2, serialization 5".
func countsText(m map[string]int64) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func items(w io.Writer, r *result.Result) {
	if len(r.Parts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nEvent parts (ms):          %8s %9s %9s %9s %9s\n", "n", "mean", "p50", "p95", "p99")
	for _, n := range partsOf([]*result.Result{r}) {
		it := r.Parts[n]
		fmt.Fprintf(w, "    %-22s %8d %9.4f %9.3f %9.3f %9.3f\n", n, it.N, it.Mean, it.P50, it.P95, it.P99)
	}
	roles := partRoles([]*result.Result{r})
	if h, ok := r.Parts[roles["handshake"]]; ok {
		if c, ok := r.Parts[roles["connect"]]; ok && c.Mean > 0 {
			fmt.Fprintf(w, "    TLS handshake share of connect time: %.0f%%\n", 100*h.Mean/c.Mean)
		}
	}
	keys := slices.Sorted(maps.Keys(r.Notes))
	for _, k := range keys {
		fmt.Fprintf(w, "    %-34s %d\n", k+":", r.Notes[k])
	}
}

// summaryProofs prints what the server's side proved of each layer.
func summaryProofs(w io.Writer, r *result.Result) {
	v := r.Variant.Verified.TLS
	fmt.Fprintf(w, "\nTLS (server's view via %s): %d of %d connections encrypted", v.Source, v.TLSConnections, v.Connections)
	for ver, n := range v.Versions {
		fmt.Fprintf(w, "; %s x%d", ver, n)
	}
	for ci, n := range v.Ciphers {
		fmt.Fprintf(w, "; %s x%d", ci, n)
	}
	if v.ServerKey != "" {
		fmt.Fprintf(w, "; server certificate %s", v.ServerKey)
	}
	fmt.Fprintln(w)
	if t := r.Variant.Verified.TDE; t != nil {
		fmt.Fprintf(w, "At rest (server's view via %s): %d of %d tables encrypted", t.Source, t.Encrypted, t.Tables)
		if t.Marker != nil {
			fmt.Fprintf(w, "; marker found %d times in raw files", t.Marker.Occurrences)
		}
		fmt.Fprintln(w)
	}
	for _, p := range r.Variant.Verified.Layers {
		fmt.Fprintf(w, "Layer %s (server's view via %s): %d of %d checked showed it on", p.Layer, p.Source, p.Proven, p.Checked)
		for _, k := range slices.Sorted(maps.Keys(p.Facts)) {
			fmt.Fprintf(w, "; %s: %s", k, p.Facts[k])
		}
		fmt.Fprintln(w)
	}
	if c := r.Variant.Verified.Colenc; c != nil {
		fmt.Fprintf(w, "Column encryption (client side): %d of %d business columns (%.1f%%); %d stored values read raw, %d of them ciphertexts of their column\n",
			c.BusinessEncrypted(), c.BusinessColumns, c.SharePct, c.Checked, c.Ciphertext)
	}
}
