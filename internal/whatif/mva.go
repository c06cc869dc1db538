// Package whatif predicts what a closed benchmark loop would do on other
// hardware: from the cost of one transaction at each resource, measured
// here, it solves a closed queueing network of N threads.
//
// The network is single-class and product-form, the model of mean value
// analysis (Reiser and Lavenberg, "Mean-Value Analysis of Closed Multichain
// Queuing Networks", JACM 27(2), 1980; Lazowska, Zahorjan, Graham and
// Sevcik, Quantitative System Performance, 1984, chapters 6 and 8). A
// station with m cores is load-dependent, serving min(j, m) of the j
// transactions it holds at once; round trips and other waits are delay
// stations, costing each transaction their time whatever the load.
//
// The solution is exact, with no approximation for multi-core stations
// (such as Seidmann's, which was 10% off at 4 cores and 4 threads here).
// It is computed by the convolution algorithm (Buzen, "Computational
// algorithms for closed queueing networks with exponential servers", CACM
// 16(9), 1973) in logarithms, which gives MVA's throughput and queue
// lengths and stays stable where MVA's recursion for multiple-server
// stations is not: at 64 cores and 256 threads that recursion loses the
// probability of an idle core to rounding and gave 3,257 transactions per
// second for the exact 16,000 (TestMultiCoreStation's last case).
//
// What the model assumes is the product form: service times whose
// variability and order do not matter beyond their means, no locks held
// across stations, no memory or cache effects of the load. It is written
// here rather than taken from a library: the Go queueing packages found
// were unmaintained or simulation-only, and the algorithm is short enough
// for the tests to check against the closed forms of the machine-repair
// model.
package whatif

import (
	"errors"
	"fmt"
	"math"
)

// Station is one resource a transaction visits.
type Station struct {
	Name string
	// Demand is the service time one transaction needs here, in seconds
	// (visits times time per visit).
	Demand float64
	// Cores serving it: 1 is a single queue, m > 1 a multi-core station,
	// 0 a pure delay (infinite servers: network round trips, think time).
	Cores int
}

// Network is a closed loop of stations that every transaction visits.
type Network struct {
	Stations []Station
}

// Point is the network's state at one thread count.
type Point struct {
	Threads int
	// Throughput in transactions per second; Response is the time of one
	// transaction, in seconds (N / Throughput, Little's law).
	Throughput, Response float64
	// Utilization per station, as a share of its cores (0..1); Queue is
	// the mean number of transactions at each (waiting or served).
	Utilization, Queue []float64
	// Bottleneck is the station with the highest utilization.
	Bottleneck string
}

// Validate refuses a network MVA cannot solve.
func (n Network) Validate() error {
	if len(n.Stations) == 0 {
		return errors.New("whatif: a network needs at least one station")
	}
	total := 0.0
	for _, s := range n.Stations {
		switch {
		case s.Demand < 0 || math.IsNaN(s.Demand) || math.IsInf(s.Demand, 0):
			return fmt.Errorf("whatif: station %s: demand %v is not a time", s.Name, s.Demand)
		case s.Cores < 0:
			return fmt.Errorf("whatif: station %s: %d cores", s.Name, s.Cores)
		}
		total += s.Demand
	}
	if total == 0 {
		return errors.New("whatif: every station's demand is zero: the loop would be infinitely fast")
	}
	return nil
}

// Solve returns the network's state with threads transactions in the loop.
func (n Network) Solve(threads int) (Point, error) {
	f, all, err := n.constants(threads)
	if err != nil {
		return Point{}, err
	}
	p := Point{Threads: threads, Throughput: math.Exp(all[threads-1] - all[threads])}
	p.Response = float64(threads) / p.Throughput
	top := -1.0
	for i, s := range n.Stations {
		u := 0.0 // a delay is never busy
		if s.Cores > 0 {
			u = p.Throughput * s.Demand / float64(s.Cores)
		}
		// The station's marginal: P(j) = f_i(j) G_without_i(N-j) / G(N).
		rest := convolve(f, i, threads)
		q := 0.0
		for j := 1; j <= threads; j++ {
			q += float64(j) * math.Exp(f[i][j]+rest[threads-j]-all[threads])
		}
		p.Utilization = append(p.Utilization, u)
		p.Queue = append(p.Queue, q)
		if s.Cores > 0 && u > top {
			top, p.Bottleneck = u, s.Name
		}
	}
	return p, nil
}

// throughput is Solve's throughput alone, without the stations' queues.
func (n Network) throughput(threads int) (float64, error) {
	_, all, err := n.constants(threads)
	if err != nil {
		return 0, err
	}
	return math.Exp(all[threads-1] - all[threads]), nil
}

// constants are the stations' log weights and the log normalizing
// constants G(0..threads) of the whole network.
func (n Network) constants(threads int) (f [][]float64, all []float64, err error) {
	if err := n.Validate(); err != nil {
		return nil, nil, err
	}
	if threads < 1 {
		return nil, nil, fmt.Errorf("whatif: %d threads", threads)
	}
	f = make([][]float64, len(n.Stations))
	for i, s := range n.Stations {
		f[i] = logWeights(s, threads)
	}
	return f, convolve(f, -1, threads), nil
}

// logWeights are log f(j), j = 0..n, of a station: D^j over the product
// of its service rates' multipliers min(l, cores) for l = 1..j (l itself
// for a delay, which serves everyone at once).
func logWeights(s Station, n int) []float64 {
	w := make([]float64, n+1)
	ld := math.Log(s.Demand) // -Inf for a zero demand: only j = 0 counts
	for j := 1; j <= n; j++ {
		busy := j
		if s.Cores > 0 {
			busy = min(j, s.Cores)
		}
		w[j] = w[j-1] + ld - math.Log(float64(busy))
	}
	return w
}

// convolve is the log of the normalizing constants G(0..n) of every
// station but skip (-1: none).
func convolve(f [][]float64, skip, n int) []float64 {
	g := make([]float64, n+1)
	for j := 1; j <= n; j++ {
		g[j] = math.Inf(-1) // no station yet: G(0) = 1 only
	}
	next := make([]float64, n+1)
	for i, w := range f {
		if i == skip {
			continue
		}
		for m := 0; m <= n; m++ {
			next[m] = logSum(g[:m+1], w[:m+1])
		}
		g, next = next, g
	}
	return g
}

// logSum is log(sum over j of exp(a[m-j] + b[j])), without overflow.
func logSum(a, b []float64) float64 {
	m := len(a) - 1
	top := math.Inf(-1)
	for j := 0; j <= m; j++ {
		top = max(top, a[m-j]+b[j])
	}
	if math.IsInf(top, -1) {
		return top
	}
	sum := 0.0
	for j := 0; j <= m; j++ {
		sum += math.Exp(a[m-j] + b[j] - top)
	}
	return top + math.Log(sum)
}
