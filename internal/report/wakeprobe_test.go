package report

import (
	"math"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// probeResult is one result of the wake-up probe: the connect workload's
// reused query, one round trip per event.
func probeResult(threads, rep int, tps, clientUs, serverUs float64) *result.Result {
	r := costly("plain", rep, clientUs, serverUs, 1, 30, 90)
	r.Threads = threads
	r.Workload = result.Workload{Name: probeWorkload, Label: "wake_probe", Params: map[string]any{probePhaseKey: probePhase}}
	setTPS(r, tps)
	return r
}

// TestWakeProbeGivesTheCostOfAnIdleRoundTrip: the probe's one-thread
// row against its busy row gives the client's and the server's extra CPU
// and the latency per round trip; the what-if section says them, and a
// suite without the probe says the model charges none.
func TestWakeProbeGivesTheCostOfAnIdleRoundTrip(t *testing.T) {
	var cells, rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		b, v := costly("plain", rep, 50, 900, 20, 40, 97), costly("tls", rep, 71, 906, 20, 45, 97)
		cells = append(cells, b, v)
		// One thread: 25 + 35 us of CPU in a 70 us round trip.
		rs = append(rs, probeResult(1, rep, 1e6/70, 25, 35), probeResult(8, rep, 40000, 12, 24))
	}
	rows := Aggregate(append(rs, cells...), "plain", &Order{})
	probes := wakeProbes(rows, "plain")
	p, ok := probes["mariadb"]
	if !ok || len(probes) != 1 {
		t.Fatalf("probes %+v", probes)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"client", p.Wake.Client, 13e-6}, {"server", p.Wake.Server, 11e-6}, {"latency", p.Wake.Latency, 10e-6}} {
		if math.Abs(c.got-c.want) > 0.05e-6 {
			t.Errorf("%s: %v s per round trip, want %v", c.name, c.got, c.want)
		}
	}
	if p.Idle != 1 || p.Busy != 8 {
		t.Errorf("probe threads %d and %d, want 1 and 8", p.Idle, p.Busy)
	}
	l := english(t)
	w := &WhatIf{Speed: 1, Threads: []int{1}, Spec: "threads=1"}
	if intro := whatIfIntro(l, w, sortedProbes(probes)); !strings.Contains(intro, "mariadb: client CPU 13.0 us, server CPU 11.0 us, latency 10.0 us") {
		t.Errorf("the what-if intro does not give the probe: %s", intro)
	}
	if intro := whatIfIntro(l, w, nil); !strings.Contains(intro, "no wake-up probe") {
		t.Errorf("the what-if intro does not say the probe is missing: %s", intro)
	}
	// Charged at one thread, the wake-ups lengthen both sides' round
	// trips alike and so dilute the loss.
	with := project(l, rows, "plain", w)
	noProbe := project(l, Aggregate(cells, "plain", &Order{}), "plain", w)
	if with[0].LossPct == nil || noProbe[0].LossPct == nil || with[0].LossPct.Mean >= noProbe[0].LossPct.Mean {
		t.Errorf("1 thread: loss %+v with the probe, %+v without", with[0].LossPct, noProbe[0].LossPct)
	}
}
