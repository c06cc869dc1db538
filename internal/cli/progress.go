package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// progress shows a suite's advance: a bar on a terminal, one line per
// finished cell otherwise (logs, CI).
type progress struct {
	out      io.Writer
	total    int
	done     int
	started  time.Time
	cellT0   time.Time
	measured []time.Duration
	mu       sync.Mutex
	current  string
	tps      float64
	bar      *mpb.Bar
	p        *mpb.Progress
	// most and deadline bound the blocks a precision target may add; no
	// block starts past the deadline, so the suite ends by then plus at
	// most one block of blockCells cells.
	most       int
	blockCells int
	deadline   time.Time
}

func newProgress(out io.Writer, total, done int) *progress {
	pr := &progress{out: out, total: total, done: done, started: time.Now()}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		pr.p = mpb.New(mpb.WithOutput(f), mpb.WithWidth(30), mpb.WithRefreshRate(500*time.Millisecond))
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(
				decor.CountersNoUnit("cell %d/%d", decor.WCSyncWidth),
				decor.Any(func(decor.Statistics) string { return " " + elapsedString(time.Since(pr.started)) }),
			),
			mpb.AppendDecorators(
				decor.Any(func(decor.Statistics) string { return "eta " + pr.eta() }),
				decor.Any(func(decor.Statistics) string { return "  " + pr.liveText() }),
			),
		)
		pr.bar.SetCurrent(int64(done))
	}
	return pr
}

func (pr *progress) CellStart(c suite.Cell) {
	pr.mu.Lock()
	pr.current = fmt.Sprintf("%s %s %dthr r%d", c.Setup, c.WorkloadID(), c.Threads, c.Repetition)
	pr.tps = math.NaN()
	pr.cellT0 = time.Now()
	pr.mu.Unlock()
}

// live gets the running cell's interval TPS; it runs on the runner's
// collector goroutine, once per second.
func (pr *progress) Live(tps float64) {
	pr.mu.Lock()
	pr.tps = tps
	pr.mu.Unlock()
}

func (pr *progress) liveText() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if math.IsNaN(pr.tps) {
		return pr.current + " (starting)"
	}
	return fmt.Sprintf("%s %.0f tps", pr.current, pr.tps)
}

// eta runs on the display's goroutine too, hence the lock.
func (pr *progress) eta() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if len(pr.measured) == 0 {
		return "--:--:--"
	}
	var sum time.Duration
	for _, d := range pr.measured {
		sum += d
	}
	perCell := sum / time.Duration(len(pr.measured))
	left := pr.left(perCell, pr.total)
	// The budget's end plus the block under way bounds every estimate:
	// the planner starts no block that would end past it.
	most := time.Duration(-1)
	if !pr.deadline.IsZero() {
		most = max(0, time.Until(pr.deadline)) + perCell*time.Duration(pr.blockCells)
		left = min(left, most)
	}
	if pr.most <= pr.total {
		return elapsedString(left)
	}
	upTo := pr.left(perCell, pr.most)
	if most >= 0 {
		upTo = min(upTo, most)
	}
	if upTo <= left {
		return elapsedString(left)
	}
	// Blocks the precision target may still add: the range it spans.
	return elapsedString(left) + " (up to " + elapsedString(upTo) + ")"
}

// left is the time until total cells are done at perCell each.
func (pr *progress) left(perCell time.Duration, total int) time.Duration {
	left := perCell * time.Duration(max(0, total-pr.done))
	if pr.done < total {
		// Count down through the running cell.
		left = max(0, left-time.Since(pr.cellT0))
	}
	return left
}

// Bound sets how far a precision target may grow the suite, the budget's
// deadline and the largest block.
func (pr *progress) Bound(mostCells, blockCells int, deadline time.Time) {
	pr.mu.Lock()
	pr.most, pr.blockCells, pr.deadline = mostCells, blockCells, deadline
	pr.mu.Unlock()
}

func (pr *progress) CellDone(c suite.Cell, res *result.Result, err error) {
	pr.mu.Lock()
	// An interleaved block starts once and ends every cell together: each
	// cell's time is since the one before it ended, so they add up to the
	// block's wall time instead of each counting all of it.
	now := time.Now()
	pr.measured = append(pr.measured, now.Sub(pr.cellT0))
	pr.cellT0 = now
	pr.done++
	pr.mu.Unlock()
	line := fmt.Sprintf("[%*d/%d %s eta %s] %-14s %-27s %3d thr r%d: ", len(fmt.Sprint(pr.total)), pr.done, pr.total,
		elapsedString(time.Since(pr.started)), pr.eta(), c.Setup, c.WorkloadID(), c.Threads, c.Repetition)
	switch {
	case err != nil:
		line += "FAILED: " + oneLine(err)
	case res != nil:
		line += fmt.Sprintf("%10.2f tps  p95 %8.2f ms", res.TPS, res.LatencyMs.P95)
	}
	if pr.bar != nil {
		fmt.Fprintln(pr.p, line)
		pr.bar.Increment()
		return
	}
	fmt.Fprintln(pr.out, line)
}

// Grow adds cells a precision target asked for.
func (pr *progress) Grow(n int) {
	pr.mu.Lock()
	pr.total += n
	total := pr.total
	pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.SetTotal(int64(total), false)
	}
}

func (pr *progress) Close() {
	if pr.p != nil {
		pr.bar.Abort(false)
		pr.p.Wait()
		pr.p = nil
	}
}
