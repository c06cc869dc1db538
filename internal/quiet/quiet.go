// Package quiet keeps the machine quiet while a cell is measured: servers
// of other cells are first allowed to finish their background work
// (checkpoints, page flushes, purge), then frozen until their turn.
package quiet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/encbench/encbench/internal/measure"
)

// Settling defaults: a server is settled once its processes used at most
// one scheduler tick (10 ms) of CPU over a 250 ms window.
const (
	Window  = 250 * time.Millisecond
	IdleCPU = 10 * time.Millisecond
	MaxWait = 20 * time.Second
)

// Settle waits until the process tree under pid is idle or maxWait has
// passed, and returns how long it waited and whether it went idle.
func Settle(ctx context.Context, pid int, maxWait time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	prev, err := measure.TreeCPU(pid)
	if err != nil {
		return 0, false, fmt.Errorf("settling server %d: %w", pid, err)
	}
	for {
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-time.After(Window):
		}
		cur, err := measure.TreeCPU(pid)
		if err != nil {
			return time.Since(start), false, fmt.Errorf("settling server %d: %w", pid, err)
		}
		if cur-prev <= IdleCPU {
			return time.Since(start), true, nil
		}
		if time.Since(start) >= maxWait {
			return time.Since(start), false, nil
		}
		prev = cur
	}
}

// Freeze stops every process of the tree under pid (SIGSTOP), parent
// first so it cannot start new children meanwhile.
func Freeze(pid int) error {
	pids, err := measure.Tree(pid)
	if err != nil {
		return err
	}
	return FreezeTree(pids)
}

// Thaw continues every process of the tree under pid (SIGCONT). It is
// harmless on a tree that is not frozen.
func Thaw(pid int) error {
	pids, err := measure.Tree(pid)
	if err != nil {
		return err
	}
	return ThawTree(pids)
}

// FreezeTree is Freeze for a tree already found (measure.Tree's order):
// finding one reads every process on the machine, too slow to do on
// every turn of an interleaved block.
// It returns once every thread of the tree has stopped (or after
// stopWait): kill(2) only queues the stop, and a thread busy on another
// CPU may still answer a request meanwhile, which a caller that froze the
// server so that nothing answers must not see.
func FreezeTree(pids []int) error {
	if err := signalTree(pids, syscall.SIGSTOP, false); err != nil {
		return err
	}
	deadline := time.Now().Add(stopWait)
	for !allStopped(pids) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
	}
	return nil
}

// stopWait bounds FreezeTree's wait for a tree's threads to stop.
const stopWait = 200 * time.Millisecond

// allStopped says whether every thread of every process in pids is in the
// stopped state (T) or gone.
func allStopped(pids []int) bool {
	for _, pid := range pids {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			continue // gone
		}
		for _, task := range tasks {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			if err != nil {
				continue
			}
			st := string(data)
			if i := strings.LastIndex(st, ")"); i >= 0 && i+2 < len(st) && st[i+2] != 'T' && st[i+2] != 'Z' && st[i+2] != 'X' {
				return false
			}
		}
	}
	return true
}

// ThawTree is Thaw for a tree already found.
func ThawTree(pids []int) error { return signalTree(pids, syscall.SIGCONT, true) }

func signalTree(tree []int, sig syscall.Signal, childrenFirst bool) error {
	pids := slices.Clone(tree)
	if childrenFirst {
		slices.Reverse(pids)
	}
	var all error
	for _, p := range pids {
		// A process that ended meanwhile is not an error.
		if err := syscall.Kill(p, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			all = errors.Join(all, fmt.Errorf("signal %v to %d: %w", sig, p, err))
		}
	}
	return all
}

// SettleAll is Settle for several servers at once: it waits until every
// tree is idle (each over the same window) or maxWait has passed, and
// returns how long it waited and whether all went idle.
func SettleAll(ctx context.Context, pids []int, maxWait time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	prev := make([]time.Duration, len(pids))
	for i, pid := range pids {
		v, err := measure.TreeCPU(pid)
		if err != nil {
			return 0, false, fmt.Errorf("settling server %d: %w", pid, err)
		}
		prev[i] = v
	}
	busy := slices.Clone(pids)
	for len(busy) > 0 {
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-time.After(Window):
		}
		var still []int
		var stillPrev []time.Duration
		for i, pid := range busy {
			cur, err := measure.TreeCPU(pid)
			if err != nil {
				return time.Since(start), false, fmt.Errorf("settling server %d: %w", pid, err)
			}
			if cur-prev[i] > IdleCPU {
				still, stillPrev = append(still, pid), append(stillPrev, cur)
			}
		}
		busy, prev = still, stillPrev
		if len(busy) > 0 && time.Since(start) >= maxWait {
			return time.Since(start), false, nil
		}
	}
	return time.Since(start), true, nil
}
