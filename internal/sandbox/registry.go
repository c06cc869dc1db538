package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/fsx"
)

// Owner is the encbench process that started a sandbox and stops it when
// it ends (a suite). A sandbox started by hand (`sandbox up`) has none: it
// runs until `sandbox down`. Start is the process's start time in clock
// ticks since boot, so a recycled pid is not taken for the owner.
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Self is the running process as an owner.
func Self() *Owner {
	pid := os.Getpid()
	start, _ := startTime(pid)
	return &Owner{PID: pid, Start: start}
}

// Alive says whether the owner process still runs.
func (o *Owner) Alive() bool {
	if o == nil || !alive(o.PID) {
		return false
	}
	start, err := startTime(o.PID)
	return err == nil && start == o.Start
}

// startTime reads field 22 of /proc/PID/stat.
func startTime(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(data)
	i := strings.LastIndex(s, ")")
	if i < 0 {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	// Fields after the command name start at field 3 (state).
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// RegistryDir is where every sandbox leaves a pointer to its directory,
// so `sandbox ls` and `sandbox prune` find sandboxes wherever they are:
// $ENCBENCH_STATE_DIR, or encbench/sandboxes under the user's cache
// directory.
func RegistryDir() (string, error) {
	if d := os.Getenv("ENCBENCH_STATE_DIR"); d != "" {
		return filepath.Join(d, "sandboxes"), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the sandbox registry: %w (set ENCBENCH_STATE_DIR)", err)
	}
	return filepath.Join(cache, "encbench", "sandboxes"), nil
}

func registryEntry(dir string) (string, error) {
	reg, err := RegistryDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(reg, hex.EncodeToString(sum[:8])+".json"), nil
}

type pointer struct {
	Dir    string `json:"dir"`
	Engine string `json:"engine,omitempty"`
}

// enrol records a started sandbox in the registry.
func enrol(dir, engine string) error {
	path, err := registryEntry(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the sandbox registry: %w", err)
	}
	data, _ := json.Marshal(pointer{Dir: dir, Engine: engine})
	return fsx.WriteFile(path, data, 0o644)
}

// unenrol forgets a sandbox that has stopped.
func unenrol(dir string) {
	if path, err := registryEntry(dir); err == nil {
		_ = os.Remove(path)
	}
}

// State is what `sandbox ls` says of one sandbox.
type State struct {
	Info *Info
	// Server: running, frozen (a suite stopped it between its turns) or
	// stopped (the process is gone).
	Server string
	// Orphan: a suite started it and has ended without stopping it (it
	// was killed).
	Orphan bool
	// Deleted: the sandbox's directory is gone while its server still runs
	// (found from the process table); such a server is always an orphan.
	Deleted bool
}

// OwnerText says who owns a sandbox.
func (s State) OwnerText() string {
	switch o := s.Info.Owner; {
	case s.Deleted:
		return "none: its directory was deleted while the server ran"
	case o == nil:
		return "none (started by hand)"
	case s.Orphan:
		return fmt.Sprintf("encbench pid %d, gone", o.PID)
	default:
		return fmt.Sprintf("encbench pid %d", o.PID)
	}
}

// List reads the registry: every sandbox still recorded, in directory
// order. Pointers to directories without a sandbox are dropped.
func List() ([]State, error) {
	reg, err := RegistryDir()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(reg)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sandbox registry %s: %w", reg, err)
	}
	var out []State
	for _, e := range entries {
		path := filepath.Join(reg, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(path)
		var p pointer
		if err != nil || json.Unmarshal(data, &p) != nil || p.Dir == "" {
			_ = os.Remove(path)
			continue
		}
		info, err := Load(p.Dir)
		if err != nil {
			if procs, _ := ServersUnder(p.Dir); len(procs) > 0 {
				info = &Info{Engine: p.Engine, Dir: p.Dir, PID: procs[0].PID}
				out = append(out, State{Info: info, Server: "running", Orphan: true, Deleted: true})
				continue
			}
			_ = os.Remove(path)
			continue
		}
		s := State{Info: info, Server: serverState(info)}
		s.Orphan = info.Owner != nil && !info.Owner.Alive()
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Info.Dir < out[j].Info.Dir })
	return out, nil
}

// serverState looks at the sandbox's server process; a pid that now
// belongs to a process not started from the sandbox's directory was
// recycled, and the server is stopped.
func serverState(info *Info) string {
	pid := info.PID
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !alive(pid) || !strings.Contains(string(cmdline), info.Dir) {
		return "stopped"
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		s := string(data)
		if i := strings.LastIndex(s, ")"); i >= 0 && i+2 < len(s) && s[i+2] == 'T' {
			return "frozen"
		}
	}
	return "running"
}

// MemberState is a replica's server state, as serverState's.
func MemberState(m Member) string { return serverState(&Info{PID: m.PID, Dir: m.Dir}) }

// Prune stops every sandbox whose owner is gone and clears the state of
// those whose server has died; it returns what it stopped. Sandboxes
// started by hand, or owned by a live encbench, are left alone.
func Prune() ([]State, error) {
	all, err := List()
	if err != nil {
		return nil, err
	}
	var stopped []State
	var errs []error
	for _, s := range all {
		if s.Server == "stopped" {
			// Nothing to signal (the pid may be another process's now).
			unenrol(s.Info.Dir)
			_ = os.Remove(filepath.Join(s.Info.Dir, stateFile))
			stopped = append(stopped, s)
			continue
		}
		if !s.Orphan {
			continue
		}
		if s.Deleted {
			if _, err := StopServersUnder(s.Info.Dir); err != nil {
				errs = append(errs, err)
				continue
			}
			unenrol(s.Info.Dir)
			stopped = append(stopped, s)
			continue
		}
		if err := Down(s.Info.Dir); err != nil {
			errs = append(errs, fmt.Errorf("stopping the sandbox in %s: %w", s.Info.Dir, err))
			continue
		}
		stopped = append(stopped, s)
	}
	return stopped, errors.Join(errs...)
}
