package whatif

import (
	"errors"
	"fmt"
	"math"
)

// Costs are what one transaction of a variant costs, measured on this
// machine at Threads threads: CPU seconds on the client's and the
// server's cores, the round trips it makes, and its throughput.
type Costs struct {
	ClientCPU, ServerCPU float64
	RoundTrips           float64
	Threads              int
	TPS                  float64
}

// Setting is where a loop runs: its cores, their speed against this
// machine's (2: twice as fast), and the round-trip time added to each of a
// transaction's round trips.
type Setting struct {
	Threads                  int
	ClientCores, ServerCores int
	// SharedCores, when above 0, puts client and server on the same
	// cores: one station of that many cores serves both CPU demands, and
	// ClientCores and ServerCores are not used.
	SharedCores int
	Speed       float64
	RTT         float64 // seconds
}

// Model is a variant's calibrated network: its CPU costs, and the wait
// the measurement had beyond them (the loopback round trips, wake-ups,
// locks), kept as a delay that does not depend on the setting.
type Model struct {
	Costs Costs
	// Wait is the calibrated delay per transaction, in seconds.
	Wait float64
	// CPUScale is what Calibrate scaled the measured CPU by to fit the
	// throughput (1: as measured).
	CPUScale float64
}

// ErrNotProjected is a measurement the network cannot describe: its CPU
// alone takes far longer than the transactions it measured (the cores
// were shared with something else), so no wait fits it.
var ErrNotProjected = errors.New("whatif: the measured CPU per transaction is more than twice what the throughput leaves; not projected")

// minCPUScale is how far Calibrate may scale measured CPU down to fit
// the throughput: a saturated station reads up to some percent above its
// cores (CPU in 10 ms ticks, the drain after each turn counted in the CPU
// but not in the turn's throughput), not twice.
const minCPUScale = 0.5

// Calibrate fits the wait so that the network at the measured setting
// (here) gives the measured throughput. The wait is found by bisection:
// throughput falls as the wait grows. When the CPU alone allows less than
// the measured throughput (a saturated station read a little over its
// cores), the CPU demands are scaled down until it allows exactly that,
// with no wait, and CPUScale says by how much.
func Calibrate(c Costs, here Setting) (Model, error) {
	if c.Threads < 1 || c.TPS <= 0 || c.ClientCPU < 0 || c.ServerCPU < 0 || c.RoundTrips < 0 {
		return Model{}, fmt.Errorf("whatif: costs %+v cannot be calibrated", c)
	}
	here.Threads = c.Threads
	at := func(m Model) (float64, error) {
		p, err := m.network(here).Solve(c.Threads)
		return p.Throughput, err
	}
	top, err := at(Model{Costs: c})
	if err != nil {
		return Model{}, err
	}
	if top < c.TPS {
		return scaledToFit(c, at)
	}
	lo, hi := 0.0, float64(c.Threads)/c.TPS // with no CPU at all, N/X is the whole time
	for range 100 {
		mid := (lo + hi) / 2
		x, err := at(Model{Costs: c, Wait: mid})
		if err != nil {
			return Model{}, err
		}
		if x > c.TPS {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Model{Costs: c, Wait: (lo + hi) / 2, CPUScale: 1}, nil
}

// scaledToFit finds the largest scale of both CPU demands at which the
// network, with no wait, reaches the measured throughput.
func scaledToFit(c Costs, at func(Model) (float64, error)) (Model, error) {
	scaled := func(f float64) Model {
		s := c
		s.ClientCPU, s.ServerCPU = f*c.ClientCPU, f*c.ServerCPU
		return Model{Costs: s, CPUScale: f}
	}
	if x, err := at(scaled(minCPUScale)); err != nil || x < c.TPS {
		return Model{}, ErrNotProjected
	}
	lo, hi := minCPUScale, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		x, err := at(scaled(mid))
		if err != nil {
			return Model{}, err
		}
		if x >= c.TPS {
			lo = mid
		} else {
			hi = mid
		}
	}
	return scaled(lo), nil
}

// network is the model at a setting: the client's and the server's cores
// as multi-core stations (demands scaled by the cores' speed), the
// calibrated wait and the added round trips as delays.
func (m Model) network(s Setting) Network {
	speed := s.Speed
	if speed <= 0 {
		speed = 1
	}
	delays := []Station{
		{Name: "wait", Demand: m.Wait},
		{Name: "network", Demand: m.Costs.RoundTrips * s.RTT},
	}
	if s.SharedCores > 0 {
		return Network{Stations: append([]Station{
			{Name: "CPU", Demand: (m.Costs.ClientCPU + m.Costs.ServerCPU) / speed, Cores: s.SharedCores},
		}, delays...)}
	}
	return Network{Stations: append([]Station{
		{Name: "client CPU", Demand: m.Costs.ClientCPU / speed, Cores: max(s.ClientCores, 1)},
		{Name: "server CPU", Demand: m.Costs.ServerCPU / speed, Cores: max(s.ServerCores, 1)},
	}, delays...)}
}

// Predict is the variant's state at a setting.
func (m Model) Predict(s Setting) (Point, error) {
	if s.Threads < 1 {
		return Point{}, fmt.Errorf("whatif: %d threads", s.Threads)
	}
	return m.network(s).Solve(s.Threads)
}

// Loss is the predicted throughput loss of variant against baseline at a
// setting, in percent.
func Loss(baseline, variant Model, s Setting) (float64, error) {
	b, err := baseline.Predict(s)
	if err != nil {
		return math.NaN(), err
	}
	v, err := variant.Predict(s)
	if err != nil {
		return math.NaN(), err
	}
	return 100 * (1 - v.Throughput/b.Throughput), nil
}
