package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/quiet"
)

// Proc is a sandbox server process found in the process table.
type Proc struct {
	PID     int
	Command string // its command line, arguments joined by spaces
}

// ServersUnder finds the server processes started from a sandbox directory
// at or under dir. It reads the process table, not state files, so a
// directory deleted or overwritten while its server ran (a killed suite's,
// then `rm -rf`) still hides none: every sandbox server names its
// directory on its command line (PostgreSQL's -D, MariaDB's
// --defaults-file, FerretDB's --state-dir). Only
// processes running a sandbox engine's server binary count, so an
// encbench or a shell whose arguments name the directory is not one.
func ServersUnder(dir string) ([]Proc, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", dir, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(raw) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if !isServerBinary(filepath.Base(args[0])) || !namesPathUnder(args[1:], abs) {
			continue
		}
		out = append(out, Proc{PID: pid, Command: strings.Join(args, " ")})
	}
	return out, nil
}

// isServerBinary says whether name is an executable a sandbox provider starts.
func isServerBinary(name string) bool {
	switch name {
	case "postgres", "mariadbd", "mysqld", "ferretdb":
		return true
	}
	return false
}

func namesPathUnder(args []string, dir string) bool {
	for _, a := range args {
		if i := strings.IndexByte(a, '='); i >= 0 && strings.HasPrefix(a, "-") {
			a = a[i+1:]
		}
		if a == dir || strings.HasPrefix(a, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// StopServersUnder stops every server ServersUnder finds (thawing one a
// suite left frozen), waits until each has exited and returns them, so
// that dir can be deleted or reused.
func StopServersUnder(dir string) ([]Proc, error) {
	found, err := ServersUnder(dir)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, p := range found {
		_ = quiet.Thaw(p.PID)
		if err := stop(p.PID, 60*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("stopping %s (pid %d): %w", p.Command, p.PID, err))
		}
	}
	return found, errors.Join(errs...)
}
