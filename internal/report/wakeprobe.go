package report

import (
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/whatif"
)

// The wake-up probe is the connect workload's reused query (one trivial
// round trip per event, on a connection kept open) on the baseline, run
// at one thread and at a thread count that saturates the server: at one
// thread every round trip finds both sides idle, saturated none does, so
// the difference per round trip is what waking an idle core costs on
// this machine and server, whatever the workload. A suite that has it
// lets the what-if model charge wake-ups where a setting leaves cores
// idle (few threads, many cores, long round trips).
const (
	probeWorkload = "connect"
	probePhaseKey = "connect_phase"
	probePhase    = "reused"
)

// isWakeProbe says whether a row measured the probe's query.
func isWakeProbe(r *Row) bool {
	if len(r.Results) == 0 {
		return false
	}
	w := r.Results[0].Workload
	return w.Name == probeWorkload && w.Params[probePhaseKey] == probePhase
}

// WakeProbe is a target's measured wake-up cost per round trip, with the
// two rows it comes from.
type WakeProbe struct {
	Target string      `json:"target"`
	Wake   whatif.Wake `json:"wake_s_per_round_trip"`
	// Idle and Busy are the probe's thread counts.
	Idle int `json:"idle_threads"`
	Busy int `json:"busy_threads"`
}

// wakeProbes finds each target's probe among the rows of the baseline:
// its one-thread row and its row at the most threads, which must have
// left the server busier.
func wakeProbes(rows []*Row, baseline string) map[string]WakeProbe {
	idle, busy := map[string]*Row{}, map[string]*Row{}
	for _, r := range rows {
		if r.Variant != baseline || r.Rate > 0 || !isWakeProbe(r) || r.Results[0].Network != nil {
			continue
		}
		if r.Threads == 1 {
			idle[r.Target] = r
		} else if b := busy[r.Target]; b == nil || r.Threads > b.Threads {
			busy[r.Target] = r
		}
	}
	out := map[string]WakeProbe{}
	for t, i := range idle {
		b := busy[t]
		if b == nil {
			continue
		}
		ci, ok1 := probeCosts(i)
		cb, ok2 := probeCosts(b)
		if !ok1 || !ok2 {
			continue
		}
		perTrip := func(v float64) float64 { return max(0, v) / ci.trips }
		out[t] = WakeProbe{Target: t, Idle: i.Threads, Busy: b.Threads, Wake: whatif.Wake{
			Client:  perTrip(ci.client - cb.client),
			Server:  perTrip(ci.server - cb.server),
			Latency: perTrip(1/ci.tps - ci.client - ci.server),
		}}
	}
	return out
}

// sortedProbes are the probes in target order, for the report.
func sortedProbes(probes map[string]WakeProbe) []WakeProbe {
	out := make([]WakeProbe, 0, len(probes))
	for _, p := range probes {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b WakeProbe) int { return strings.Compare(a.Target, b.Target) })
	return out
}

// probeRun is a probe row's means over its results, in seconds.
type probeRun struct{ client, server, trips, tps float64 }

func probeCosts(r *Row) (probeRun, bool) {
	var p probeRun
	n := 0.0
	for _, res := range r.Results {
		c, _, err := measuredCosts(res)
		if err != nil {
			return p, false
		}
		p.client += c.ClientCPU
		p.server += c.ServerCPU
		p.trips += max(1, c.RoundTrips)
		p.tps += c.TPS
		n++
	}
	if n == 0 {
		return p, false
	}
	p.client, p.server, p.trips, p.tps = p.client/n, p.server/n, p.trips/n, p.tps/n
	return p, p.tps > 0
}
