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

// Wake is what one round trip costs when it finds a side's cores idle,
// beyond what it costs a core that is already busy: the CPU the client's
// and the server's side spend waking (an idle core's exit, the blocked
// process's wake-up, cold caches) and the time that passes meanwhile
// without either side's CPU (the wake-up's latency), each in seconds.
// A probe measures them per machine and server (a trivial query at one
// thread, where every round trip finds both sides idle, against the same
// query with the server saturated); they do not depend on the workload.
type Wake struct {
	Client  float64 `json:"client_s"`
	Server  float64 `json:"server_s"`
	Latency float64 `json:"latency_s"`
}

func (w Wake) zero() bool { return w.Client <= 0 && w.Server <= 0 && w.Latency <= 0 }

// Model is a variant's calibrated network: its CPU costs when its cores
// are busy, what a round trip adds when it finds them idle, and the wait
// the measurement had beyond both (the loopback, locks), kept as a delay
// that does not depend on the setting.
type Model struct {
	// Costs are the busy costs: a saturated core's CPU per transaction.
	Costs Costs
	Wake  Wake
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
//
// The measured CPU includes the wake-ups of the round trips that found a
// side idle; with a wake cost, Calibrate takes them out (at the idle
// shares the model gives here) so that Costs are busy costs, and the
// model at the measured setting spends what was measured.
func Calibrate(c Costs, here Setting, wake Wake) (Model, error) {
	if c.Threads < 1 || c.TPS <= 0 || c.ClientCPU < 0 || c.ServerCPU < 0 || c.RoundTrips < 0 {
		return Model{}, fmt.Errorf("whatif: costs %+v cannot be calibrated", c)
	}
	here.Threads = c.Threads
	if wake.zero() {
		return fitWait(c, wake, here)
	}
	// The busy costs depend on the idle shares, which depend on the
	// wait, and the wait on the busy costs: rounds of both settle them.
	var m Model
	busy := Model{Wake: wake, CPUScale: 1}.unwoken(c, here).Costs
	for range 10 {
		var err error
		if m, err = fitWait(busy, wake, here); err != nil {
			return Model{}, err
		}
		next := Model{Wake: wake, Wait: m.Wait, CPUScale: 1}.unwoken(c, here).Costs
		settled := math.Abs(next.ClientCPU-busy.ClientCPU) <= 1e-4*c.ClientCPU && math.Abs(next.ServerCPU-busy.ServerCPU) <= 1e-4*c.ServerCPU
		busy = next
		if settled {
			break
		}
	}
	return m.unwoken(c, here), nil
}

// Variant is the model of a variant measured beside base: its own busy
// costs (measured c, scaled and without its wake-ups like the base's),
// base's wake costs, wait and CPU scale. A layer adds work, not the
// machine's latency.
func Variant(c Costs, base Model, here Setting) Model {
	here.Threads = c.Threads
	return base.unwoken(c, here)
}

// unwoken is m with costs c measured at here, scaled by m's CPU scale
// and less the wake-ups of their round trips at the idle shares m's
// network, spending what was measured, has there.
func (m Model) unwoken(c Costs, here Setting) Model {
	scale := m.CPUScale
	if scale <= 0 {
		scale = 1
	}
	c.ClientCPU, c.ServerCPU = scale*c.ClientCPU, scale*c.ServerCPU
	m.Costs = c
	if m.Wake.zero() {
		return m
	}
	// Measured demands are the busy ones with their wake-ups at the idle
	// shares the busy ones produce. The measured demands' own shares are
	// a first guess; a few rounds settle them.
	idle := m.idleOf(here, here.Threads, false)
	for range 10 {
		m.Costs.ClientCPU = max(0, c.ClientCPU-c.RoundTrips*m.Wake.Client*idle.client)
		m.Costs.ServerCPU = max(0, c.ServerCPU-c.RoundTrips*m.Wake.Server*idle.server)
		next := m.idleAt(here, here.Threads)
		if math.Abs(next.client-idle.client) < 1e-4 && math.Abs(next.server-idle.server) < 1e-4 {
			break
		}
		idle = next
	}
	return m
}

// fitWait fits the wait of costs c (busy) to their measured throughput.
func fitWait(c Costs, wake Wake, here Setting) (Model, error) {
	at := func(m Model) (float64, error) {
		return m.throughput(here, c.Threads)
	}
	top, err := at(Model{Costs: c, Wake: wake})
	if err != nil {
		return Model{}, err
	}
	if top < c.TPS {
		return scaledToFit(c, wake, at)
	}
	lo, hi := 0.0, float64(c.Threads)/c.TPS // with no CPU at all, N/X is the whole time
	for range 45 {
		mid := (lo + hi) / 2
		x, err := at(Model{Costs: c, Wake: wake, Wait: mid})
		if err != nil {
			return Model{}, err
		}
		if x > c.TPS {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Model{Costs: c, Wake: wake, Wait: (lo + hi) / 2, CPUScale: 1}, nil
}

// scaledToFit finds the largest scale of both CPU demands at which the
// network, with no wait, reaches the measured throughput.
func scaledToFit(c Costs, wake Wake, at func(Model) (float64, error)) (Model, error) {
	scaled := func(f float64) Model {
		s := c
		s.ClientCPU, s.ServerCPU = f*c.ClientCPU, f*c.ServerCPU
		return Model{Costs: s, Wake: wake, CPUScale: f}
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

// idleShares are the shares of round trips that find the client's and
// the server's cores idle (client alone for cores they share).
type idleShares struct{ client, server float64 }

// network is the model at a setting: the client's and the server's cores
// as multi-core stations (demands scaled by the cores' speed) with the
// wake-ups the idle shares cost, the calibrated wait, the wake-ups'
// latency and the added round trips as delays.
func (m Model) network(s Setting, idle idleShares) Network {
	return m.stations(s, idle, true)
}

// stations is network, with the wake-ups' CPU added to the demands or
// (cpuWakes false: demands measured with their wake-ups in them) not.
func (m Model) stations(s Setting, idle idleShares, cpuWakes bool) Network {
	speed := s.Speed
	if speed <= 0 {
		speed = 1
	}
	rt, w := m.Costs.RoundTrips, m.Wake
	cpuClient, cpuServer := w.Client, w.Server
	if !cpuWakes {
		cpuClient, cpuServer = 0, 0
	}
	// The latency of a wake-up falls to the side that woke, in the
	// proportion of their wake-up CPU (half each when neither has any).
	clientShare := 0.5
	if w.Client+w.Server > 0 {
		clientShare = w.Client / (w.Client + w.Server)
	}
	delays := []Station{
		{Name: "wait", Demand: m.Wait},
		{Name: "network", Demand: rt * s.RTT},
	}
	if s.SharedCores > 0 {
		return Network{Stations: append([]Station{
			{Name: "CPU", Demand: (m.Costs.ClientCPU + m.Costs.ServerCPU + rt*(cpuClient+cpuServer)*idle.client) / speed, Cores: s.SharedCores},
			{Name: "wake-up", Demand: rt * w.Latency * idle.client / speed},
		}, delays...)}
	}
	return Network{Stations: append([]Station{
		{Name: "client CPU", Demand: (m.Costs.ClientCPU + rt*cpuClient*idle.client) / speed, Cores: max(s.ClientCores, 1)},
		{Name: "server CPU", Demand: (m.Costs.ServerCPU + rt*cpuServer*idle.server) / speed, Cores: max(s.ServerCores, 1)},
		{Name: "wake-up", Demand: rt * w.Latency * (clientShare*idle.client + (1-clientShare)*idle.server) / speed},
	}, delays...)}
}

// idleAt is the idle shares that threads transactions see: by the
// arrival theorem, a round trip finds a station as the network holds it
// with one transaction fewer, whose idle share for a single core is one
// less its utilization (for several cores, at least one is idle at
// least that often, the share used here). The demands depend on the
// shares they produce; damped fixed-point iteration finds them.
func (m Model) idleAt(s Setting, threads int) idleShares {
	return m.idleOf(s, threads, true)
}

// idleOf is idleAt, with the wake-ups' CPU in the demands or not (see
// stations).
func (m Model) idleOf(s Setting, threads int, cpuWakes bool) idleShares {
	all := idleShares{1, 1}
	if m.Wake.zero() || threads <= 1 {
		return all
	}
	for range 60 {
		net := m.stations(s, all, cpuWakes)
		x, err := net.throughput(threads - 1)
		if err != nil {
			return all
		}
		share := func(i int) float64 {
			st := net.Stations[i]
			return 1 - min(1, x*st.Demand/float64(st.Cores))
		}
		next := idleShares{client: share(0)}
		next.server = next.client
		if s.SharedCores <= 0 {
			next.server = share(1)
		}
		next = idleShares{(all.client + next.client) / 2, (all.server + next.server) / 2}
		done := math.Abs(next.client-all.client) < 1e-5 && math.Abs(next.server-all.server) < 1e-5
		all = next
		if done {
			break
		}
	}
	return all
}

// throughput is the model's throughput at a setting.
func (m Model) throughput(s Setting, threads int) (float64, error) {
	return m.network(s, m.idleAt(s, threads)).throughput(threads)
}

// Predict is the variant's state at a setting.
func (m Model) Predict(s Setting) (Point, error) {
	if s.Threads < 1 {
		return Point{}, fmt.Errorf("whatif: %d threads", s.Threads)
	}
	return m.network(s, m.idleAt(s, s.Threads)).Solve(s.Threads)
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
