package measure

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestFindProcessFindsThisTest(t *testing.T) {
	comm, err := os.ReadFile(filepath.Join("/proc", "self", "comm"))
	if err != nil {
		t.Skip("no /proc")
	}
	name := string(comm[:len(comm)-1])
	pid, err := FindProcess(name)
	if err != nil {
		t.Fatal(err)
	}
	// The oldest process of this name is this test binary or an older copy
	// of it; either way it has the name.
	got, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if string(got) != string(comm) {
		t.Fatalf("pid %d is %q, want %q", pid, got, comm)
	}
	if _, err := FindProcess("no-such-process-encbench"); err == nil {
		t.Fatal("found a process that does not exist")
	}
}

func TestMachineCPUAdvances(t *testing.T) {
	s0, err := MachineCPU()
	if err != nil {
		t.Skip(err)
	}
	for i := 0; i < 3e7; i++ { // burn a little CPU
		_ = i * i
	}
	time.Sleep(30 * time.Millisecond)
	s1, _ := MachineCPU()
	if s0.Busy > s0.Total || s1.Busy > s1.Total || s1.Total < s0.Total || s1.Busy < s0.Busy || s1.Steal < s0.Steal {
		t.Fatalf("busy/total went from %+v to %+v", s0, s1)
	}
	busy, steal, secs, ok := s1.Since(s0)
	// 100% is reachable on a loaded machine; allow float rounding above it.
	if !ok || busy < 0 || busy > 100+1e-6 || steal < 0 || steal > busy || secs < 0 {
		t.Fatalf("window: busy %v%% steal %v%% %v s ok %v", busy, steal, secs, ok)
	}
	if _, _, _, ok := s0.Since(s0); ok {
		t.Fatal("an empty window gave a utilisation")
	}
}

func TestDiskDescribesTheWorkingDirectory(t *testing.T) {
	if Disk(".") == "" {
		t.Fatal("no description of the disk holding .")
	}
	if Disk("/nonexistent/path") != "" {
		t.Fatal("a missing path got a disk")
	}
}

// A tree found once reads what TreeCPU reads, and finds itself again when
// one of its processes has ended.
func TestProcTreeReadsItsOwnProcesses(t *testing.T) {
	child := exec.Command("sleep", "0.2")
	if err := child.Start(); err != nil {
		t.Skip("no sleep command")
	}
	tree, err := NewProcTree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.pids) < 2 || tree.pids[0] != os.Getpid() {
		t.Fatalf("tree %v, want this process and its child", tree.pids)
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	got, err := tree.CPU()
	want, err2 := TreeCPU(os.Getpid())
	if err != nil || err2 != nil || got <= 0 || got > want || want-got > 20*time.Millisecond {
		t.Fatalf("tree CPU %v (%v), TreeCPU %v (%v)", got, err, want, err2)
	}
	if err := child.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.CPU(); err != nil || len(tree.pids) != 1 {
		t.Errorf("after the child ended: %v, tree %v", err, tree.pids)
	}
}
