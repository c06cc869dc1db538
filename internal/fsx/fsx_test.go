package fsx

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFileIsAtomicWithFinalMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "k.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	data, _ := os.ReadFile(p)
	if st.Mode().Perm() != 0o600 || string(data) != "new" {
		t.Errorf("mode %v data %q", st.Mode().Perm(), data)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestCheckPrivate(t *testing.T) {
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o700)
	p := filepath.Join(dir, "master.json")
	_ = os.WriteFile(p, []byte("x"), 0o600)
	if err := CheckPrivate(p); err != nil {
		t.Fatalf("a private file: %v", err)
	}
	_ = os.Chmod(p, 0o640)
	if err := CheckPrivate(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("group-readable: %v", err)
	}
	_ = os.Chmod(p, 0o600)
	_ = os.Chmod(dir, 0o777)
	if err := CheckPrivate(p); err == nil || !strings.Contains(err.Error(), "others may write") {
		t.Errorf("world-writable directory: %v", err)
	}
	_ = os.Chmod(dir, 0o777|os.ModeSticky)
	if err := CheckPrivate(p); err != nil {
		t.Errorf("sticky directory (like /tmp): %v", err)
	}
	if os.Getuid() == 0 {
		_ = os.Chmod(dir, 0o700)
		_ = os.Chown(p, 4242, 4242)
		if err := CheckPrivate(p); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Errorf("foreign owner: %v", err)
		}
	}
}

// TestWriteFileOnAFullDisk: on a file system without room the old file
// stays whole and no temporary file is left behind (a 64 KiB tmpfs, so
// the test needs the right to mount: root).
func TestWriteFileOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v); run as root", err)
	}
	defer syscall.Unmount(dir, 0)
	path := filepath.Join(dir, "cell.json")
	old := []byte(`{"tps": 1}`)
	if err := WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, make([]byte, 256<<10), 0o644)
	if err == nil || !NoRoom(err) {
		t.Fatalf("writing 256 KiB to a 64 KiB file system: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(old) {
		t.Errorf("the old file was changed: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left: %d", len(entries))
	}
}
