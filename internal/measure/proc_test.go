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

// burnEnv makes this test binary, started again with it, a child that
// runs short bursts of CPU (a database backend's shape) for the given
// time and then sleeps until it is killed.
const burnEnv = "ENCBENCH_MEASURE_BURN"

func TestMain(m *testing.M) {
	if d, err := time.ParseDuration(os.Getenv(burnEnv)); err == nil {
		for end := time.Now().Add(d); time.Now().Before(end); {
			for burst := time.Now().Add(100 * time.Microsecond); time.Now().Before(burst); {
			}
			time.Sleep(300 * time.Microsecond)
		}
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Fresh processes that run in short bursts are read for the CPU they ran
// while they are alive, not only once they exit: /proc/PID/stat alone
// showed about half of it on the test machine.
func TestTreeCPUCountsFreshBurstingProcesses(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	const children = 16
	var procs []*exec.Cmd
	defer func() {
		for _, c := range procs {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	for range children {
		c := exec.Command(self)
		c.Env = append(os.Environ(), burnEnv+"=400ms")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, c)
	}
	time.Sleep(800 * time.Millisecond) // every child has burnt and sleeps
	var live time.Duration
	for _, c := range procs {
		cpu, err := TreeCPU(c.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		live += cpu
	}
	var final time.Duration
	for _, c := range procs {
		_ = c.Process.Kill()
		_ = c.Wait()
		final += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	procs = nil
	if final < 100*time.Millisecond {
		t.Skipf("the children ran only %v: too little to compare", final)
	}
	if live < final*9/10 || live > final*11/10+50*time.Millisecond {
		t.Fatalf("read %v of CPU while the children were alive; they had run %v when they exited", live, final)
	}
}
