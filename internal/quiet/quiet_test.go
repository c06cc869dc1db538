package quiet

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/measure"
)

// busyTree starts a shell whose child spins, like a server's worker.
func busyTree(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", "while :; do :; done & wait")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		_ = Thaw(cmd.Process.Pid)
		pids, _ := measure.Tree(cmd.Process.Pid)
		for _, p := range pids {
			_ = exec.Command("kill", "-9", strconv.Itoa(p)).Run()
		}
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if pids, _ := measure.Tree(cmd.Process.Pid); len(pids) == 2 {
			return cmd.Process.Pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the spinning child did not start")
	return 0
}

func cpuOver(t *testing.T, pid int, d time.Duration) time.Duration {
	t.Helper()
	a, err := measure.TreeCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	b, err := measure.TreeCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	return b - a
}

func TestFreezeStopsTheWholeTreeAndThawResumesIt(t *testing.T) {
	pid := busyTree(t)
	if used := cpuOver(t, pid, 300*time.Millisecond); used < 50*time.Millisecond {
		t.Fatalf("the spinning tree used only %v before freezing", used)
	}
	if err := Freeze(pid); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if used := cpuOver(t, pid, 300*time.Millisecond); used > IdleCPU {
		t.Fatalf("a frozen tree used %v of CPU", used)
	}
	if err := Thaw(pid); err != nil {
		t.Fatal(err)
	}
	if used := cpuOver(t, pid, 300*time.Millisecond); used < 50*time.Millisecond {
		t.Fatalf("a thawed tree used only %v", used)
	}
}

func TestSettleWaitsForWorkAndGivesUpAtTheLimit(t *testing.T) {
	pid := busyTree(t)
	waited, idle, err := Settle(context.Background(), pid, 600*time.Millisecond)
	if err != nil || idle || waited < 600*time.Millisecond {
		t.Fatalf("a busy tree: waited %v, idle %v, err %v", waited, idle, err)
	}
	if err := Freeze(pid); err != nil {
		t.Fatal(err)
	}
	waited, idle, err = Settle(context.Background(), pid, 5*time.Second)
	if err != nil || !idle || waited > 2*time.Second {
		t.Fatalf("an idle tree: waited %v, idle %v, err %v", waited, idle, err)
	}
	if _, _, err := Settle(context.Background(), 1<<30, time.Second); err == nil {
		t.Fatal("settling a process that does not exist did not fail")
	}
}
