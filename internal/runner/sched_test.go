package runner

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/runset"
)

// TestClosedLoopWorkersRunBatch: closed-loop workers sharing a CPU run on
// SCHED_BATCH threads, pinned ones on threads of their own, unpinned ones
// in a process whose threads are all marked for the run (unless it also
// carries an emulated network's delay lines); a lone worker on
// its CPU and rate-mode workers do not; and no thread is left SCHED_BATCH
// once the runs are over (a server started later from such a thread would
// inherit it).
func TestClosedLoopWorkersRunBatch(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		wantBatch bool
		// wholeProcess: every thread of the process is SCHED_BATCH during
		// the run, not only the workers'.
		wholeProcess bool
	}{
		{"three workers on one CPU", Config{Threads: 3, CPUs: []int{0}, Settings: runset.Settings{Events: 300}}, true, false},
		{"one worker on its CPU", Config{Threads: 1, CPUs: []int{0}, Settings: runset.Settings{Events: 100}}, false, false},
		{"rate mode", Config{Threads: 3, CPUs: []int{0}, Settings: runset.Settings{Time: 300 * time.Millisecond, Rate: 200}}, false, false},
		{"more workers than CPUs, unpinned", Config{Threads: clientCPUCount(nil) + 2, Settings: runset.Settings{Events: 300}}, true, true},
		{"unpinned, beside an emulated network's delay lines", Config{Threads: clientCPUCount(nil) + 2, DelayLines: true, Settings: runset.Settings{Events: 300}}, true, false},
		{"as many workers as CPUs, unpinned", Config{Threads: clientCPUCount(nil), Settings: runset.Settings{Events: 300}}, false, false},
	}
	for _, c := range cases {
		w := &fakeWorkload{watchPolicy: true}
		if _, err := Run(context.Background(), target(&fakeEngine{}), w, c.cfg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		batch, other := w.batch.Load(), w.notBatch.Load()
		if c.wantBatch && (batch == 0 || other != 0) || !c.wantBatch && (other == 0 || batch != 0) {
			t.Errorf("%s: %d events on SCHED_BATCH threads, %d on others; want batch %v", c.name, batch, other, c.wantBatch)
		}
		if unmarked := w.unmarked.Load(); c.wholeProcess != (unmarked == 0) {
			t.Errorf("%s: up to %d of the process's threads were not SCHED_BATCH during the run; want the whole process %v", c.name, unmarked, c.wholeProcess)
		}
	}
	// A locked goroutine's thread exits with it, shortly after Run returns.
	var left []string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = batchThreads(t); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("threads still SCHED_BATCH after the runs: %v", left)
	}
}

// batchThreads lists the process's threads whose policy (field 41 of
// /proc/self/task/TID/stat) is SCHED_BATCH.
func batchThreads(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		// Fields after the command name, which is in parentheses.
		rest := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(rest) > 38 && rest[38] == "3" {
			out = append(out, p)
		}
	}
	return out
}

// monoClock's readings carry the monotonic clock (latencies subtract
// without the wall clock) and stay within a moment of time.Now.
func TestMonoClockFollowsTimeNow(t *testing.T) {
	c := monoClock{base: time.Now()}
	a := c.now()
	time.Sleep(2 * time.Millisecond)
	b := c.now()
	if d := b.Sub(a); d < 2*time.Millisecond || d > time.Second {
		t.Fatalf("2ms apart, monoClock says %v", d)
	}
	if d := time.Since(b); d < 0 || d > time.Second {
		t.Fatalf("monoClock is %v behind time.Now", d)
	}
	if !strings.Contains(b.String(), " m=") {
		t.Fatal("monoClock's reading has no monotonic clock")
	}
}

// TestProcsPerWorker: an unpinned closed-loop run has a P per worker and
// none to spare; a rate-mode run keeps one for its scheduler of start
// times; both put the count back.
func TestProcsPerWorker(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	threads := before + 3
	cases := []struct {
		name string
		cfg  Config
		want int
	}{
		{"closed loop", Config{Threads: threads, Settings: runset.Settings{Events: 200}}, threads},
		{"rate mode", Config{Threads: threads, Settings: runset.Settings{Time: 200 * time.Millisecond, Rate: 200}}, threads + 1},
	}
	for _, c := range cases {
		w := &fakeWorkload{}
		if _, err := Run(context.Background(), target(&fakeEngine{}), w, c.cfg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := int(w.procs.Load()); got != c.want {
			t.Errorf("%s: events ran with %d Ps, want %d", c.name, got, c.want)
		}
		if after := runtime.GOMAXPROCS(0); after != before {
			t.Errorf("%s: %d Ps after the run, %d before", c.name, after, before)
		}
	}
}
