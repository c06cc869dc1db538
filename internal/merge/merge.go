// Package merge adds up the results of load generators that shared one run
// (encbench run --generator I/N) into one result: histograms are added,
// never percentiles averaged; counts, rates and interval series are summed
// on the common time grid; each generator's own client CPU is kept.
package merge

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/result"
)

// Load reads the command line's generator results: files as given (each
// must be a generator's), directories for the generator results they hold.
func Load(args []string) ([]*result.Result, error) {
	var out []*result.Result
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, errs.Usage("cannot read %s: %w", a, err)
		}
		if !st.IsDir() {
			rs, err := read([]string{a})
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(a, "*.json"))
		for _, m := range matches {
			if r, err := result.ReadFile(m); err == nil && r.Generator != nil {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil, errs.Usage("no generator results in %s: give the files that encbench run --generator I/N --json wrote, or their directory", strings.Join(args, " "))
	}
	return out, nil
}

// Files reads and merges generator results.
func Files(paths []string) (*result.Result, error) {
	rs, err := read(paths)
	if err != nil {
		return nil, err
	}
	return Results(rs)
}

func read(paths []string) ([]*result.Result, error) {
	var rs []*result.Result
	for _, p := range paths {
		r, err := result.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if r.Generator == nil {
			return nil, errs.Usage("%s is not a generator's result (run with --generator I/N)", p)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Results merges the results of generators 0..N-1 of one run; results
// that did not prove the same variant against the same server, or are not
// exactly one whole set of generators, are refused with what differs.
func Results(rs []*result.Result) (*result.Result, error) {
	if err := sameRun(rs); err != nil {
		return nil, err
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Generator.Index < rs[j].Generator.Index })
	m := *rs[0]
	m.Generator = nil
	m.Generators = nil
	m.Threads, m.RateLimit, m.TPS, m.QPS, m.DurationS = 0, 0, 0, 0, 0
	m.Totals = result.Totals{}
	m.Notes, m.Rates, m.Parts = nil, nil, nil
	hist := measure.NewHistogram()
	tls := result.TLSProof{Source: rs[0].Variant.Verified.TLS.Source}
	for _, r := range rs {
		g := *r.Generator
		g.Transactions, g.TPS, g.ClientS, g.Host = r.Totals.Transactions, r.TPS, r.CPU.ClientS, r.Environment.Host
		m.Generators = append(m.Generators, g)
		m.Partial = m.Partial || r.Partial
		m.Threads += r.Threads
		m.RateLimit += r.RateLimit
		m.TPS += r.TPS
		m.QPS += r.QPS
		m.DurationS = math.Max(m.DurationS, r.DurationS)
		addTotals(&m.Totals, r.Totals)
		m.Notes = addCounts(m.Notes, r.Notes)
		m.Rates = addRates(m.Rates, r.Rates)
		h, err := r.LatencyHistogram()
		if err != nil {
			return nil, fmt.Errorf("generator %d's latency histogram: %w", r.Generator.Index, err)
		}
		hist.Merge(h)
		addTLS(&tls, r.Variant.Verified.TLS)
	}
	m.Variant.Verified.TLS = tls
	m.TPS, m.QPS = round(m.TPS, 2), round(m.QPS, 2)
	m.LatencyMs = result.LatencyOf(hist)
	var err error
	if m.Histogram, err = result.EncodeHistogram(hist); err != nil {
		return nil, err
	}
	m.CPU = cpu(rs, m.Totals.Transactions, m.DurationS)
	m.Traffic, m.ServerIO = traffic(rs, m.Totals.Transactions), serverIO(rs, m.Totals.Transactions)
	m.Intervals = intervals(rs)
	m.Parts = parts(rs)
	m.Fairness = fairness(rs)
	return &m, nil
}

// sameRun checks that rs are generators 0..N-1 of one run, each having
// proved the same variant against the same server and workload.
func sameRun(rs []*result.Result) error {
	if len(rs) == 0 {
		return errs.Usage("nothing to merge")
	}
	n := rs[0].Generator.Count
	seen := map[int]bool{}
	for _, r := range rs {
		g := r.Generator
		if g.Count != n {
			return errs.Usage("generator %d is one of %d, generator %d one of %d: merge one run's generators", rs[0].Generator.Index, n, g.Index, g.Count)
		}
		if seen[g.Index] {
			return errs.Usage("generator %d appears twice", g.Index)
		}
		seen[g.Index] = true
	}
	if len(rs) != n {
		var missing []string
		for i := range n {
			if !seen[i] {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		return errs.Usage("%d of %d generators given: generator %s missing", len(rs), n, strings.Join(missing, ", "))
	}
	base := rs[0]
	for _, r := range rs {
		if !r.Variant.Verified.OK {
			return errs.Usage("generator %d did not prove its variant (%s): its result cannot be merged", r.Generator.Index, strings.Join(r.Variant.Verified.Msg, "; "))
		}
		if diff := differences(base, r); len(diff) > 0 {
			return errs.Usage("generator %d and generator %d did not run the same test: %s", base.Generator.Index, r.Generator.Index, strings.Join(diff, "; "))
		}
	}
	return nil
}

// differences lists what two generators' results disagree on that must
// be the same for their sum to mean anything.
func differences(a, b *result.Result) []string {
	var out []string
	diff := func(what string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s %v vs %v", what, show(x), show(y)))
		}
	}
	diff("server", a.Engine.Kind+" "+a.Engine.Version, b.Engine.Kind+" "+b.Engine.Version)
	diff("target", a.Target, b.Target)
	diff("start", a.Generator.StartAt, b.Generator.StartAt)
	diff("variant", a.Variant.Name, b.Variant.Name)
	diff("TLS mode", a.Variant.TLS, b.Variant.TLS)
	diff("TDE", a.Variant.TDE, b.Variant.TDE)
	diff("column encryption", a.Variant.Colenc, b.Variant.Colenc)
	diff("TLS seen by the server", tlsShape(a.Variant.Verified.TLS), tlsShape(b.Variant.Verified.TLS))
	diff("encrypted tables", tdeShape(a.Variant.Verified.TDE), tdeShape(b.Variant.Verified.TDE))
	diff("workload", a.Workload.Name, b.Workload.Name)
	diff("workload options", a.Workload.Params, b.Workload.Params)
	diff("warmup", a.WarmupS, b.WarmupS)
	diff("network", a.Network, b.Network)
	return out
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// tlsShape is what a TLS proof says regardless of how many connections
// each generator had: encrypted or not, with which versions and ciphers.
func tlsShape(p result.TLSProof) string {
	state := "none encrypted"
	switch {
	case p.TLSConnections == p.Connections && p.Connections > 0:
		state = "all encrypted"
	case p.TLSConnections > 0:
		state = "some encrypted"
	}
	return fmt.Sprintf("%s %v %v", state, slices.Sorted(maps.Keys(p.Versions)), slices.Sorted(maps.Keys(p.Ciphers)))
}

func tdeShape(p *result.TDEProof) string {
	if p == nil {
		return "not checked"
	}
	return fmt.Sprintf("%d of %d", p.Encrypted, p.Tables)
}

func addTLS(dst *result.TLSProof, p result.TLSProof) {
	dst.Connections += p.Connections
	dst.TLSConnections += p.TLSConnections
	for k, v := range p.Versions {
		if dst.Versions == nil {
			dst.Versions = map[string]int{}
		}
		dst.Versions[k] += v
	}
	for k, v := range p.Ciphers {
		if dst.Ciphers == nil {
			dst.Ciphers = map[string]int{}
		}
		dst.Ciphers[k] += v
	}
}

func addTotals(dst *result.Totals, t result.Totals) {
	dst.Transactions += t.Transactions
	dst.Queries.Read += t.Queries.Read
	dst.Queries.Write += t.Queries.Write
	dst.Queries.Other += t.Queries.Other
	dst.Queries.Total += t.Queries.Total
	dst.Errors += t.Errors
	dst.Reconnects += t.Reconnects
	dst.Retried += t.Retried
	dst.Retries += t.Retries
	dst.Failed = addCounts(dst.Failed, t.Failed)
	dst.ErrorCodes = addCounts(dst.ErrorCodes, t.ErrorCodes)
}

func addCounts(dst, src map[string]int64) map[string]int64 {
	for k, v := range src {
		if dst == nil {
			dst = map[string]int64{}
		}
		dst[k] += v
	}
	return dst
}

// addRates sums rates such as tpmC: each generator's is its own share.
func addRates(dst, src map[string]float64) map[string]float64 {
	for k, v := range src {
		if dst == nil {
			dst = map[string]float64{}
		}
		dst[k] = round(dst[k]+v, 2)
	}
	return dst
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
