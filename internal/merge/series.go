package merge

import (
	"math"
	"sort"

	"github.com/encbench/encbench/internal/result"
)

// cpu keeps each generator's client CPU (in Generators) and adds them up;
// the server was measured over the same window by whichever generators
// could see it, so its figure is taken once, not summed; machine shares
// are the busiest generator's.
func cpu(rs []*result.Result, txns int64, secs float64) result.CPU {
	c := result.CPU{MachineCores: rs[0].CPU.MachineCores, ServerPID: rs[0].CPU.ServerPID, ServerCPUs: rs[0].CPU.ServerCPUs}
	for _, r := range rs {
		c.ClientS += r.CPU.ClientS
		c.ClientUtilPct = math.Max(c.ClientUtilPct, r.CPU.ClientUtilPct)
		if c.ServerS == nil && r.CPU.ServerS != nil {
			c.ServerS, c.ServerUtilPct = r.CPU.ServerS, r.CPU.ServerUtilPct
		}
		c.MachineUtilPct = maxPtr(c.MachineUtilPct, r.CPU.MachineUtilPct)
		c.ForeignUtilPct = maxPtr(c.ForeignUtilPct, r.CPU.ForeignUtilPct)
		c.StealPct = maxPtr(c.StealPct, r.CPU.StealPct)
	}
	c.ClientS = round(c.ClientS, 3)
	if txns > 0 {
		c.ClientSPerTxn = c.ClientS / float64(txns)
		if c.ServerS != nil {
			per := *c.ServerS / float64(txns)
			c.ServerSPerTxn = &per
		}
	}
	return c
}

// traffic adds up the generators' sockets; nil unless every generator
// counted its own.
func traffic(rs []*result.Result, txns int64) *result.Traffic {
	var t result.Traffic
	for _, r := range rs {
		if r.Traffic == nil {
			return nil
		}
		t.BytesIn += r.Traffic.BytesIn
		t.BytesOut += r.Traffic.BytesOut
		t.RoundTrips += r.Traffic.RoundTrips
	}
	if txns > 0 {
		n := float64(txns)
		t.BytesInPerTxn, t.BytesOutPerTxn, t.RoundTripsPerTxn = float64(t.BytesIn)/n, float64(t.BytesOut)/n, float64(t.RoundTrips)/n
	}
	return &t
}

// serverIO is the server's, measured by whichever generator could see it
// over the common window: taken once, as its CPU is.
func serverIO(rs []*result.Result, txns int64) *result.ServerIO {
	for _, r := range rs {
		if r.ServerIO != nil {
			s := *r.ServerIO
			if txns > 0 {
				n := float64(txns)
				s.StorageReadBytesPerTxn, s.StorageWriteBytesPerTxn = float64(s.StorageReadBytes)/n, float64(s.StorageWriteBytes)/n
				if s.Disk != nil {
					d := *s.Disk
					d.ReadBytesPerTxn, d.WriteBytesPerTxn = float64(d.ReadBytes)/n, float64(d.WriteBytes)/n
					s.Disk = &d
				}
			}
			return &s
		}
	}
	return nil
}

func maxPtr(a, b *float64) *float64 {
	if b == nil || a != nil && *a >= *b {
		return a
	}
	v := *b
	return &v
}

// intervals sums the generators' interval series on their common grid:
// every generator started measuring at the same --start-at, so interval
// ends line up to within scheduling noise; each is placed at its end
// rounded to a tenth of a second. Rates add up; an interval's p95 cannot
// be recovered from per-generator percentiles, so the merged one is the
// highest generator's (an upper bound), never an average.
func intervals(rs []*result.Result) []result.Interval {
	grid := map[int64]*result.Interval{}
	for _, r := range rs {
		for _, iv := range r.Intervals {
			k := int64(math.Round(iv.TS * 10))
			m := grid[k]
			if m == nil {
				m = &result.Interval{TS: float64(k) / 10}
				grid[k] = m
			}
			m.TPS = round(m.TPS+iv.TPS, 2)
			m.QPS = round(m.QPS+iv.QPS, 2)
			m.Errors = round(m.Errors+iv.Errors, 2)
			m.Failed = round(m.Failed+iv.Failed, 2)
			m.Retries = round(m.Retries+iv.Retries, 2)
			m.Reconnects = round(m.Reconnects+iv.Reconnects, 2)
			m.P95Ms = math.Max(m.P95Ms, iv.P95Ms)
		}
	}
	out := make([]result.Interval, 0, len(grid))
	for _, iv := range grid {
		out = append(out, *iv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TS < out[j].TS })
	return out
}

// items merges the timed parts: counts and means exactly; percentiles are
// not kept per generator as histograms, so they are the highest
// generator's (upper bounds).
func parts(rs []*result.Result) map[string]result.PartLatency {
	var out map[string]result.PartLatency
	for _, r := range rs {
		for name, it := range r.Parts {
			if out == nil {
				out = map[string]result.PartLatency{}
			}
			m := out[name]
			if n := m.N + it.N; n > 0 {
				m.Mean = round((m.Mean*float64(m.N)+it.Mean*float64(it.N))/float64(n), 3)
			}
			m.N += it.N
			m.P50, m.P95 = math.Max(m.P50, it.P50), math.Max(m.P95, it.P95)
			m.P99, m.Max = math.Max(m.P99, it.P99), math.Max(m.Max, it.Max)
			out[name] = m
		}
	}
	return out
}

// fairness pools the generators' per-thread means and spreads: with each
// generator's thread count, mean and (population) standard deviation, the
// pooled ones are exact.
func fairness(rs []*result.Result) result.Fairness {
	pool := func(mean, sd func(result.Fairness) float64) (float64, float64) {
		var n, sum, sq float64
		for _, r := range rs {
			k := float64(r.Threads)
			m, s := mean(r.Fairness), sd(r.Fairness)
			n += k
			sum += k * m
			sq += k * (s*s + m*m)
		}
		if n == 0 {
			return 0, 0
		}
		m := sum / n
		return round(m, 4), round(math.Sqrt(math.Max(0, sq/n-m*m)), 2)
	}
	var f result.Fairness
	f.EventsAvg, f.EventsStddev = pool(func(f result.Fairness) float64 { return f.EventsAvg }, func(f result.Fairness) float64 { return f.EventsStddev })
	f.ExecAvgS, f.ExecStddevS = pool(func(f result.Fairness) float64 { return f.ExecAvgS }, func(f result.Fairness) float64 { return f.ExecStddevS })
	return f
}
