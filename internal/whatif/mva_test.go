package whatif

import (
	"math"
	"testing"
)

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// finiteSource is the exact throughput of N customers, each thinking Z on
// average between requests, at m servers of mean service time D
// (exponential times: the M/M/m//N machine-repair model), from its
// stationary distribution: p_k is proportional to C(N,k) (D/Z)^k for k <= m
// and to C(N,k) k!/(m! m^(k-m)) (D/Z)^k above m.
func finiteSource(n, m int, d, z float64) float64 {
	rho := d / z
	p := make([]float64, n+1)
	sum := 0.0
	for k := 0; k <= n; k++ {
		c := 1.0
		for i := 0; i < k; i++ {
			c *= float64(n-i) / float64(i+1)
		}
		v := c * math.Pow(rho, float64(k))
		if k > m {
			f := 1.0
			for i := m + 1; i <= k; i++ {
				f *= float64(i) / float64(m)
			}
			v *= f
		}
		p[k] = v
		sum += v
	}
	x := 0.0
	for k := range p {
		x += p[k] / sum * float64(min(k, m)) / d
	}
	return x
}

func TestOneQueueIsExactAgainstTheMachineRepairModel(t *testing.T) {
	for _, n := range []int{1, 2, 5, 20} {
		p, err := Network{Stations: []Station{{Name: "server", Demand: 0.001, Cores: 1}, {Name: "think", Demand: 0.004}}}.Solve(n)
		if err != nil {
			t.Fatal(err)
		}
		if want := finiteSource(n, 1, 0.001, 0.004); !near(p.Throughput, want, 1e-9) {
			t.Errorf("%d threads: %v tps, the exact model %v", n, p.Throughput, want)
		}
		if !near(p.Response, float64(n)/p.Throughput, 1e-12) {
			t.Errorf("%d threads: Little's law broken: R %v, N/X %v", n, p.Response, float64(n)/p.Throughput)
		}
		if q := p.Queue[0] + p.Queue[1]; !near(q, float64(n), 1e-9) {
			t.Errorf("%d threads: the stations hold %v transactions", n, q)
		}
	}
}

// The asymptotic bounds of a closed loop (Lazowska et al. 1984, section
// 5.2): X(N) <= min(N / (D + Z), 1 / Dmax), reached at 1 thread and at
// saturation.
func TestBoundsAndSaturation(t *testing.T) {
	net := Network{Stations: []Station{
		{Name: "client", Demand: 20e-6, Cores: 1},
		{Name: "server", Demand: 50e-6, Cores: 1},
		{Name: "network", Demand: 30e-6},
	}}
	for _, n := range []int{1, 2, 4, 8, 64, 256} {
		p, err := net.Solve(n)
		if err != nil {
			t.Fatal(err)
		}
		bound := math.Min(float64(n)/100e-6, 1/50e-6)
		if p.Throughput > bound*(1+1e-12) {
			t.Errorf("%d threads: %v tps over the bound %v", n, p.Throughput, bound)
		}
		if n == 1 && !near(p.Throughput, 1/100e-6, 1e-12) {
			t.Errorf("one thread: %v tps, want 1/(D+Z)", p.Throughput)
		}
		if n == 256 && (!near(p.Throughput, 1/50e-6, 1e-3) || p.Bottleneck != "server" || p.Utilization[1] < 0.999) {
			t.Errorf("256 threads: %v tps, bottleneck %s at %v, want the server saturated", p.Throughput, p.Bottleneck, p.Utilization[1])
		}
		if p.Utilization[2] != 0 {
			t.Errorf("a delay is never busy: %v", p.Utilization[2])
		}
	}
}

// A multi-core station is exact against the finite-source model at every
// thread count, below, at and above its cores.
func TestMultiCoreStation(t *testing.T) {
	const d, z = 0.004, 0.002
	for _, c := range []struct {
		cores, threads int
		tol            float64
	}{{4, 1, 1e-9}, {4, 2, 1e-9}, {4, 4, 1e-9}, {4, 8, 1e-9}, {4, 64, 1e-6}, {2, 3, 1e-9}, {16, 32, 1e-9}, {64, 256, 1e-9}} {
		p, err := Network{Stations: []Station{{Name: "server", Demand: d, Cores: c.cores}, {Name: "rtt", Demand: z}}}.Solve(c.threads)
		if err != nil {
			t.Fatal(err)
		}
		want := finiteSource(c.threads, c.cores, d, z)
		if !near(p.Throughput, want, c.tol) {
			t.Errorf("%d cores, %d threads: %v tps, the exact model %v (more than %.0f%% off)", c.cores, c.threads, p.Throughput, want, 100*c.tol)
		}
		if p.Utilization[0] > 1+1e-12 {
			t.Errorf("%d cores, %d threads: utilization %v", c.cores, c.threads, p.Utilization[0])
		}
	}
}

func TestRefusesWhatItCannotSolve(t *testing.T) {
	for _, n := range []Network{
		{},
		{Stations: []Station{{Name: "a", Demand: -1, Cores: 1}}},
		{Stations: []Station{{Name: "a", Demand: math.NaN(), Cores: 1}}},
		{Stations: []Station{{Name: "a", Demand: 0, Cores: 1}}},
		{Stations: []Station{{Name: "a", Demand: 1, Cores: -2}}},
	} {
		if _, err := n.Solve(4); err == nil {
			t.Errorf("%+v solved", n)
		}
	}
	if _, err := (Network{Stations: []Station{{Name: "a", Demand: 1, Cores: 1}}}).Solve(0); err == nil {
		t.Error("zero threads solved")
	}
}
