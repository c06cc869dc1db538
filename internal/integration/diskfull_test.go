package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/encbench/encbench/internal/suite"
)

// TestSuiteOnAFullOrReadOnlyDisk puts a suite's cells directory on a
// small tmpfs: read-only, then with room for about one more cell. Each
// time the suite stops with one line that names the problem and how to
// resume, keeps every cell file whole, and resumes to the end once the
// file system has room.
func TestSuiteOnAFullOrReadOnlyDisk(t *testing.T) {
	servers(t)
	bin := buildBinary(t)
	dir, file := smallSuite(t, "diskfull")
	out := filepath.Join(dir, "out")
	killMidSuite(t, bin, file, out)

	// Move the finished cells onto a tmpfs mounted where they were.
	cells := suite.Dir(out).Cells()
	kept := filepath.Join(dir, "kept")
	if err := os.Rename(cells, kept); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(cells, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(kept)
	var used, cell int64
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(kept, e.Name())); err == nil {
			used += roundUp(st.Size())
			cell = max(cell, st.Size())
		}
	}
	mount := func(opts string) {
		t.Helper()
		if err := syscall.Mount("tmpfs", cells, "tmpfs", 0, opts); err != nil {
			t.Fatalf("mount tmpfs on %s (%s): %v", cells, opts, err)
		}
	}
	remount := func(opts string) {
		t.Helper()
		if err := syscall.Mount("tmpfs", cells, "tmpfs", syscall.MS_REMOUNT, opts); err != nil {
			t.Fatalf("remount %s (%s): %v", cells, opts, err)
		}
	}
	mount(fmt.Sprintf("size=%d", used+roundUp(cell)+roundUp(cell)/2))
	t.Cleanup(func() { _ = syscall.Unmount(cells, syscall.MNT_DETACH) })
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(kept, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(cells, e.Name()), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	before := len(entries)

	remount("ro")
	stopsWithOneLine(t, file, out, "read-only file system")
	if n := countFiles(cells, ".json", ".partial.json"); n != before {
		t.Errorf("a read-only cells directory gained or lost files: %d, had %d", n, before)
	}

	remount(fmt.Sprintf("rw,size=%d", used+roundUp(cell)+roundUp(cell)/2))
	stopsWithOneLine(t, file, out, "no space left on device")
	wholeCells(t, cells)
	if n := countFiles(cells, ".json", ".partial.json"); n >= 6 {
		t.Fatalf("all %d cells fit: the file system was not full", n)
	}

	remount("size=16m")
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("resume once there is room: exit %d\n%s\n%s", code, so, se)
	}
	wholeCells(t, cells)
	if n := countFiles(cells, ".json", ".partial.json"); n != 6 {
		t.Errorf("after the resume %d of 6 cells are finished", n)
	}
	if left := processesMentioning(out); len(left) > 0 {
		t.Fatalf("processes left:\n%s", strings.Join(left, "\n"))
	}
}

// stopsWithOneLine resumes the suite and expects it to stop (exit 1) with
// a single error line naming why and how to continue.
func stopsWithOneLine(t *testing.T, file, out, why string) {
	t.Helper()
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out, "--resume")
	var errLines []string
	for _, l := range strings.Split(strings.TrimSpace(se), "\n") {
		if strings.HasPrefix(l, "encbench: ") && !strings.Contains(l, "which is gone") && !strings.Contains(l, "resuming suite") {
			errLines = append(errLines, l)
		}
	}
	if code != 1 || len(errLines) != 1 || !strings.Contains(errLines[0], why) || !strings.Contains(errLines[0], "--resume") {
		t.Fatalf("with %s: exit %d, error lines %q\nstdout:\n%s\nstderr:\n%s", why, code, errLines, so, se)
	}
	t.Logf("%s", errLines[0])
	if left := processesMentioning(out); len(left) > 0 {
		t.Fatalf("processes left after the stop:\n%s", strings.Join(left, "\n"))
	}
}

// wholeCells: every file in the cells directory is complete JSON, and no
// temporary file is left.
func wholeCells(t *testing.T, cells string) {
	t.Helper()
	entries, _ := os.ReadDir(cells)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cells, e.Name()))
		if !strings.HasSuffix(e.Name(), ".json") || err != nil || !json.Valid(data) {
			t.Errorf("%s is not a whole cell file: %v", e.Name(), err)
		}
	}
}

func roundUp(n int64) int64 { return (n + 4095) / 4096 * 4096 }
