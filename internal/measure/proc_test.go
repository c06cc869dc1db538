package measure

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
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
	b0, t0, err := MachineCPU()
	if err != nil {
		t.Skip(err)
	}
	for i := 0; i < 3e7; i++ { // burn a little CPU
		_ = i * i
	}
	b1, t1, _ := MachineCPU()
	if b0 > t0 || b1 > t1 || t1 < t0 || b1 < b0 {
		t.Fatalf("busy/total went from %v/%v to %v/%v", b0, t0, b1, t1)
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
