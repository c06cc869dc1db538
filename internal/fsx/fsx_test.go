package fsx

import (
	"os"
	"path/filepath"
	"strings"
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
