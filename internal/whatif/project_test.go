package whatif

import (
	"errors"
	"math"
	"testing"
)

var here = Setting{ClientCores: 1, ServerCores: 1, Speed: 1}

// Calibrated at a setting, the model gives back the measured throughput.
func TestCalibrationReproducesTheMeasurement(t *testing.T) {
	for _, c := range []Costs{
		{ClientCPU: 20e-6, ServerCPU: 60e-6, RoundTrips: 3, Threads: 8, TPS: 15000},
		{ClientCPU: 40e-6, ServerCPU: 30e-6, RoundTrips: 10, Threads: 1, TPS: 5000},
		{ClientCPU: 1e-3, ServerCPU: 2e-3, RoundTrips: 20, Threads: 32, TPS: 300},
	} {
		m, err := Calibrate(c, here, Wake{})
		if err != nil {
			t.Fatal(err)
		}
		s := here
		s.Threads = c.Threads
		p, err := m.Predict(s)
		if err != nil || !near(p.Throughput, c.TPS, 1e-6) || m.Wait < 0 {
			t.Errorf("%+v: %v tps back (wait %v, %v)", c, p.Throughput, m.Wait, err)
		}
	}
}

// A layer that costs only client CPU in a server-bound loop costs no
// throughput until the client is the bottleneck; at one thread it costs
// its share of the transaction's time; an added RTT dilutes it.
func TestWhereAnAddedCostMovesThroughput(t *testing.T) {
	base := Costs{ClientCPU: 10e-6, ServerCPU: 80e-6, RoundTrips: 4, Threads: 8, TPS: 12000}
	tls := base
	tls.ClientCPU, tls.TPS = 20e-6, 11900
	b, err := Calibrate(base, here, Wake{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Calibrate(tls, here, Wake{})
	if err != nil {
		t.Fatal(err)
	}
	saturated := Setting{Threads: 64, ClientCores: 1, ServerCores: 1, Speed: 1}
	p, _ := v.Predict(saturated)
	if l, _ := Loss(b, v, saturated); p.Bottleneck != "server CPU" || math.Abs(l) > 0.5 {
		t.Errorf("server-bound at 64 threads: loss %.2f%%, bottleneck %s; want about 0 on the server", l, p.Bottleneck)
	}
	one := Setting{Threads: 1, ClientCores: 1, ServerCores: 1, Speed: 1}
	l1, _ := Loss(b, v, one)
	far := one
	far.RTT = 2e-3
	l2, _ := Loss(b, v, far)
	if l1 <= 0 || l2 <= 0 || l2 >= l1/5 {
		t.Errorf("one thread: loss %.2f%% on loopback, %.2f%% at +2 ms; want the RTT to dilute it", l1, l2)
	}
	// More server cores move the bottleneck to the client, where the
	// layer's cost shows.
	wide := Setting{Threads: 64, ClientCores: 1, ServerCores: 16, Speed: 1}
	if p, _ := v.Predict(wide); p.Bottleneck != "client CPU" {
		t.Errorf("16 server cores: bottleneck %s, want the client", p.Bottleneck)
	}
	if l, _ := Loss(b, v, wide); l < 40 {
		t.Errorf("client-bound: loss %.1f%%, want about half (10 us more of 20)", l)
	}
}

func TestCPUBeyondTheThroughputIsNotProjected(t *testing.T) {
	_, err := Calibrate(Costs{ClientCPU: 1e-3, ServerCPU: 1e-3, Threads: 4, TPS: 2000}, here, Wake{})
	if !errors.Is(err, ErrNotProjected) {
		t.Fatalf("2 ms of CPU per transaction at 2,000 tps on two cores: %v", err)
	}
	if _, err := Calibrate(Costs{Threads: 0, TPS: 10}, here, Wake{}); err == nil {
		t.Fatal("zero threads calibrated")
	}
}

// Client and server on the same cores queue at one station: on one
// shared core a loop that was server-bound on two cores runs at most at
// the sum of its CPU demands, and on two shared cores no slower than that.
func TestSharedCoresQueueTogether(t *testing.T) {
	c := Costs{ClientCPU: 40e-6, ServerCPU: 60e-6, Threads: 8, TPS: 15000}
	m, err := Calibrate(c, here, Wake{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := m.Predict(Setting{Threads: 8, SharedCores: 1, Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if bound := 1 / (c.ClientCPU + c.ServerCPU); one.Throughput > bound*(1+1e-9) || one.Throughput < 0.9*bound {
		t.Errorf("one shared core: %.0f tps, bound %.0f", one.Throughput, bound)
	}
	two, err := m.Predict(Setting{Threads: 8, SharedCores: 2, Speed: 1})
	if err != nil || two.Throughput <= one.Throughput {
		t.Errorf("two shared cores: %.0f tps against one core's %.0f (%v)", two.Throughput, one.Throughput, err)
	}
}

// A saturated server whose CPU reads 5% over its core (ticks, drains) is
// fitted by scaling the CPU to what the throughput leaves, with no wait;
// the model then gives the measured throughput back.
func TestSaturatedStationIsScaledToFit(t *testing.T) {
	c := Costs{ClientCPU: 30e-6, ServerCPU: 1.05 / 10000, Threads: 8, TPS: 10000}
	m, err := Calibrate(c, here, Wake{})
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUScale >= 1 || m.CPUScale < 0.9 || m.Wait != 0 {
		t.Errorf("scale %v, wait %v", m.CPUScale, m.Wait)
	}
	p, err := m.Predict(Setting{Threads: 8, ClientCores: 1, ServerCores: 1, Speed: 1})
	if err != nil || !near(p.Throughput, c.TPS, 1e-6) {
		t.Errorf("%v tps back, want %v (%v)", p.Throughput, c.TPS, err)
	}
}

// TestWakeUpsAreChargedWhereCoresIdle: at one thread every round trip
// finds both sides idle and pays its wake-ups in full; with the server
// saturated it pays none, so the throughput is the busy server's.
func TestWakeUpsAreChargedWhereCoresIdle(t *testing.T) {
	us := 1e-6
	m := Model{Costs: Costs{ClientCPU: 20 * us, ServerCPU: 60 * us, RoundTrips: 2}, Wake: Wake{Client: 5 * us, Server: 10 * us, Latency: 4 * us}}
	here := Setting{ClientCores: 1, ServerCores: 1, Speed: 1}
	one := here
	one.Threads = 1
	p, err := m.Predict(one)
	if err != nil {
		t.Fatal(err)
	}
	if want := (20 + 60 + 2*(5+10+4)) * us; !near(p.Response, want, 1e-9) {
		t.Errorf("1 thread: %v s per transaction, want %v (busy CPU and every wake-up)", p.Response, want)
	}
	many := here
	many.Threads = 64
	if p, err = m.Predict(many); err != nil {
		t.Fatal(err)
	}
	if want := 1 / (60 * us); !near(p.Throughput, want, 0.01) {
		t.Errorf("64 threads: %v tps, want the busy server's %v", p.Throughput, want)
	}
	// Many server cores leave them idle: a round trip wakes one again.
	wide := many
	wide.Threads, wide.ServerCores = 2, 64
	noWake := m
	noWake.Wake = Wake{}
	pw, _ := m.Predict(wide)
	pn, _ := noWake.Predict(wide)
	if pw.Throughput >= 0.9*pn.Throughput {
		t.Errorf("2 threads on 64 server cores: %v tps with wake-ups, %v without", pw.Throughput, pn.Throughput)
	}
}

// TestCalibrateTakesTheWakeUpsOutOfMeasuredCosts: costs measured where
// round trips found cores idle include their wake-ups; Calibrate gives
// back the busy costs and the wait of the network that produced them.
func TestCalibrateTakesTheWakeUpsOutOfMeasuredCosts(t *testing.T) {
	us := 1e-6
	wake := Wake{Client: 8 * us, Server: 12 * us, Latency: 6 * us}
	truth := Model{Costs: Costs{ClientCPU: 200 * us, ServerCPU: 600 * us, RoundTrips: 20}, Wake: wake, Wait: 150 * us, CPUScale: 1}
	for _, threads := range []int{1, 2, 4, 16} {
		here := Setting{Threads: threads, ClientCores: 1, ServerCores: 1, Speed: 1}
		idle := truth.idleAt(here, threads)
		p, err := truth.Predict(here)
		if err != nil {
			t.Fatal(err)
		}
		measured := truth.Costs
		measured.Threads, measured.TPS = threads, p.Throughput
		measured.ClientCPU += measured.RoundTrips * wake.Client * idle.client
		measured.ServerCPU += measured.RoundTrips * wake.Server * idle.server
		m, err := Calibrate(measured, here, wake)
		if err != nil {
			t.Fatal(err)
		}
		if !near(m.Costs.ClientCPU, 200*us, 0.01) || !near(m.Costs.ServerCPU, 600*us, 0.01) {
			t.Errorf("%d threads: busy costs %v / %v, want 200 / 600 us", threads, m.Costs.ClientCPU, m.Costs.ServerCPU)
		}
		if threads < 4 && !near(m.Wait, 150*us, 0.02) {
			// Saturated, the wait hardly moves throughput: only
			// the unsaturated fits can be held to it.
			t.Errorf("%d threads: wait %v, want 150 us", threads, m.Wait)
		}
		again, err := m.Predict(here)
		if err != nil || !near(again.Throughput, p.Throughput, 2e-3) {
			t.Errorf("%d threads: the calibrated model gives %v tps, measured %v (%v)", threads, again.Throughput, p.Throughput, err)
		}
	}
}
