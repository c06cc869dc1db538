package measure

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIOCountsWhatTheProcessWrote: a MiB written and synced shows in the
// process tree's storage writes and in the device's written bytes.
func TestIOCountsWhatTheProcessWrote(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(wd, "iotest")
	if err != nil {
		t.Skipf("no writable directory on the disk: %v", err)
	}
	defer os.RemoveAll(dir)
	dev, err := DiskOf(os.Getpid())
	if err != nil {
		t.Skipf("the working directory is on no block device here: %v", err)
	}
	tree, err := NewProcTree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	_, w0, err := tree.IO()
	if err != nil {
		t.Fatal(err)
	}
	d0, err := dev.Sample()
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, w1, err := tree.IO()
	if err != nil {
		t.Fatal(err)
	}
	d1, err := dev.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if w1-w0 < size {
		t.Errorf("the process wrote %d bytes, its storage writes grew by %d", size, w1-w0)
	}
	if d1.Written-d0.Written < size {
		t.Errorf("%d bytes synced, device %s wrote %d", size, dev.Name, d1.Written-d0.Written)
	}
}
