package quiet

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/encbench/encbench/internal/stats"
)

// CPUNoise is how steadily one CPU delivered work while nothing else of
// the benchmark ran: a loop pinned to it counted its work per window, in
// windows that alternate between arithmetic in registers (is the CPU
// there?) and a pointer walk through a buffer larger than most caches
// (does memory answer steadily?, which is what a database's page reads
// wait for). On a shared VM the host takes both from the guest without
// reporting steal, and turn-to-turn noise of this size then sets the
// floor of every interval measured there.
type CPUNoise struct {
	CPU int `json:"cpu"`
	// Windows is how many windows of each kind ran.
	Windows int `json:"windows"`
	// SDPct is the standard deviation of the log of the work per window,
	// in percent (about the coefficient of variation); SlowestPct is the
	// slowest window's work in percent of the median. Memory* are the
	// same for the pointer walk.
	SDPct            float64 `json:"sd_pct"`
	SlowestPct       float64 `json:"slowest_pct"`
	MemorySDPct      float64 `json:"memory_sd_pct"`
	MemorySlowestPct float64 `json:"memory_slowest_pct"`
}

// MaxNoiseCPUs bounds how many CPUs Noise measures at once.
const MaxNoiseCPUs = 8

// spinUnit is the work between two looks at the clock: a few hundred
// nanoseconds, so the clock costs little and a window holds many units;
// walkUnit is the same for the pointer walk, and walkBytes its buffer.
const (
	spinUnit  = 512
	walkUnit  = 64
	walkBytes = 16 << 20
)

// Noise spins on every given CPU at once for d, each loop pinned to its
// CPU, and says how steady each was per window.
func Noise(ctx context.Context, cpus []int, window, d time.Duration) ([]CPUNoise, error) {
	if window <= 0 || d < 4*window {
		return nil, fmt.Errorf("noise check: %v is too short for two windows of %v of each kind", d, window)
	}
	out := make([]CPUNoise, len(cpus))
	errs := make([]error, len(cpus))
	// Every loop starts at once, once every buffer is built.
	var wg, ready sync.WaitGroup
	ready.Add(len(cpus))
	starts := make(chan time.Time, len(cpus))
	for i, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = spin(ctx, cpu, ready.Done, starts, window, int(d/window))
		}()
	}
	ready.Wait()
	start := time.Now().Add(10 * time.Millisecond)
	for range cpus {
		starts <- start
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newWalk is a buffer whose entries link every index into one cycle in a
// random order, so each step of a walk is a load the caches cannot guess.
func newWalk(seed uint64) []int32 {
	n := walkBytes / 4
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	next := make([]int32, n)
	for i := range n {
		next[order[i]] = order[(i+1)%n]
	}
	return next
}

// spin counts units of work per window on cpu, arithmetic and walk in
// turn: it says it is ready once pinned with its buffer built, then takes
// its start from starts and lays its windows end to end from there.
func spin(ctx context.Context, cpu int, ready func(), starts <-chan time.Time, window time.Duration, windows int) (CPUNoise, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		ready()
		return CPUNoise{}, fmt.Errorf("noise check: pinning to CPU %d: %w", cpu, err)
	}
	next := newWalk(uint64(cpu) + 1)
	ready()
	start := <-starts
	time.Sleep(time.Until(start))
	var spins, walks []float64
	x := uint64(cpu) + 88172645463325252
	p := int32(0)
	for k := 1; k <= windows; k++ {
		if ctx.Err() != nil {
			return CPUNoise{}, ctx.Err()
		}
		end := start.Add(time.Duration(k) * window)
		n := 0
		if k%2 == 1 {
			for time.Now().Before(end) {
				for range spinUnit {
					// xorshift64: work the compiler cannot drop, as x is used.
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				n++
			}
			spins = append(spins, float64(n))
			continue
		}
		for time.Now().Before(end) {
			for range walkUnit {
				p = next[p]
			}
			n++
		}
		walks = append(walks, float64(n))
	}
	if x == 0 || p < 0 {
		return CPUNoise{}, fmt.Errorf("noise check: the work on CPU %d went wrong", cpu)
	}
	sd, slowest, err := summarize(spins)
	if err != nil {
		return CPUNoise{}, fmt.Errorf("noise check on CPU %d: %w", cpu, err)
	}
	msd, mslowest, err := summarize(walks)
	if err != nil {
		return CPUNoise{}, fmt.Errorf("noise check on CPU %d: %w", cpu, err)
	}
	return CPUNoise{CPU: cpu, Windows: len(spins), SDPct: sd, SlowestPct: slowest, MemorySDPct: msd, MemorySlowestPct: mslowest}, nil
}

// summarize is the spread of counts per window: the standard deviation
// of their log and the slowest against the median, both in percent.
func summarize(counts []float64) (sdPct, slowestPct float64, err error) {
	logs := make([]float64, 0, len(counts))
	for _, c := range counts {
		if c <= 0 {
			// A whole window without one unit: the CPU stood still.
			c = 0.5
		}
		logs = append(logs, math.Log(c))
	}
	s, err := stats.Summarize(logs)
	if err != nil {
		return 0, 0, err
	}
	if median := stats.Median(counts); median > 0 {
		slowestPct = 100 * slices.Min(counts) / median
	}
	return 100 * s.SD, slowestPct, nil
}

// AllowedCPUs lists the CPUs this process may run on, at most
// MaxNoiseCPUs of them (the first ones).
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("reading this process's CPUs: %w", err)
	}
	var out []int
	for cpu := 0; cpu < 1024 && len(out) < MaxNoiseCPUs; cpu++ {
		if set.IsSet(cpu) {
			out = append(out, cpu)
		}
	}
	return out, nil
}
