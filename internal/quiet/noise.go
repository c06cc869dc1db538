package quiet

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/encbench/encbench/internal/stats"
)

// CPUNoise is how steadily one CPU delivered work while nothing else of
// the benchmark ran: a spin loop pinned to it counted its work per window.
// On a shared VM the host takes CPU from the guest without reporting
// steal, and turn-to-turn noise of this size then sets the floor of every
// interval measured on that CPU.
type CPUNoise struct {
	CPU     int `json:"cpu"`
	Windows int `json:"windows"`
	// SDPct is the standard deviation of the log of the work per window,
	// in percent: about the coefficient of variation.
	SDPct float64 `json:"sd_pct"`
	// SlowestPct is the slowest window's work in percent of the median.
	SlowestPct float64 `json:"slowest_pct"`
}

// MaxNoiseCPUs bounds how many CPUs Noise measures at once.
const MaxNoiseCPUs = 8

// spinUnit is the work between two looks at the clock: a few hundred
// nanoseconds, so the clock costs little and a window holds many units.
const spinUnit = 512

// Noise spins on every given CPU at once for d, each loop pinned to its
// CPU, and says how steady each was per window.
func Noise(ctx context.Context, cpus []int, window, d time.Duration) ([]CPUNoise, error) {
	if window <= 0 || d < 3*window {
		return nil, fmt.Errorf("noise check: %v is too short for windows of %v", d, window)
	}
	out := make([]CPUNoise, len(cpus))
	errs := make([]error, len(cpus))
	var wg sync.WaitGroup
	start := time.Now().Add(10 * time.Millisecond)
	for i, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts, err := spin(ctx, cpu, start, window, int(d/window))
			if err != nil {
				errs[i] = err
				return
			}
			out[i], errs[i] = summarize(cpu, counts)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// spin counts units of work per window on cpu, windows laid end to end
// from start.
func spin(ctx context.Context, cpu int, start time.Time, window time.Duration, windows int) ([]float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("noise check: pinning to CPU %d: %w", cpu, err)
	}
	time.Sleep(time.Until(start))
	counts := make([]float64, 0, windows)
	x := uint64(cpu) + 88172645463325252
	for k := 1; k <= windows; k++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		end := start.Add(time.Duration(k) * window)
		n := 0
		for time.Now().Before(end) {
			for range spinUnit {
				// xorshift64: work the compiler cannot drop, as x is used.
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
			n++
		}
		counts = append(counts, float64(n))
	}
	if x == 0 {
		return nil, fmt.Errorf("noise check: xorshift reached 0 on CPU %d", cpu)
	}
	return counts, nil
}

func summarize(cpu int, counts []float64) (CPUNoise, error) {
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
		return CPUNoise{}, fmt.Errorf("noise check on CPU %d: %w", cpu, err)
	}
	n := CPUNoise{CPU: cpu, Windows: len(counts), SDPct: 100 * s.SD}
	if median := stats.Median(counts); median > 0 {
		n.SlowestPct = 100 * slices.Min(counts) / median
	}
	return n, nil
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
