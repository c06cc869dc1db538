package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClosedLoopWorkersRunBatchOnThreadsOfTheirOwn: a closed-loop worker's
// thread is SCHED_BATCH, a rate-mode worker's is not, and no thread is left
// SCHED_BATCH once the run is over (a server started later from such a
// thread would inherit the policy).
func TestClosedLoopWorkersRunBatchOnThreadsOfTheirOwn(t *testing.T) {
	closed := &fakeWorkload{watchPolicy: true}
	if _, err := Run(context.Background(), target(&fakeEngine{}), closed, Config{Threads: 3, Events: 300}); err != nil {
		t.Fatal(err)
	}
	if closed.batch.Load() == 0 || closed.notBatch.Load() != 0 {
		t.Errorf("closed loop: %d events on SCHED_BATCH threads, %d on others; want all batch", closed.batch.Load(), closed.notBatch.Load())
	}
	paced := &fakeWorkload{watchPolicy: true}
	if _, err := Run(context.Background(), target(&fakeEngine{}), paced, Config{Threads: 2, Time: 300 * time.Millisecond, Rate: 200}); err != nil {
		t.Fatal(err)
	}
	if paced.notBatch.Load() == 0 || paced.batch.Load() != 0 {
		t.Errorf("rate mode: %d events on SCHED_BATCH threads, %d on others; want none batch", paced.batch.Load(), paced.notBatch.Load())
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
