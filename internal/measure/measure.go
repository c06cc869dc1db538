// Package measure holds latency histograms and CPU accounting.
package measure

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// Histogram bounds from design.md: 1 us .. 60 s, 3 significant digits.
const (
	minMicros = 1
	maxMicros = 60_000_000
	sigFigs   = 3
)

// NewHistogram returns a latency histogram in microseconds.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(minMicros, maxMicros, sigFigs)
}

// Record adds one latency, clamped to the histogram's range.
func Record(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < minMicros {
		us = minMicros
	} else if us > maxMicros {
		us = maxMicros
	}
	_ = h.RecordValue(us) // cannot fail: the value is clamped into range
}

// Ms converts a histogram value in microseconds to milliseconds.
func Ms(us int64) float64 { return float64(us) / 1000 }

// ProcessCPU returns this process's user+system CPU time.
func ProcessCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
