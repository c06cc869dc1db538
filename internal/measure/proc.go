package measure

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"
)

// ticksPerSecond is USER_HZ, 100 on every Linux this runs on.
const ticksPerSecond = 100

// TreeCPU returns the CPU time of process pid and all its descendants, plus
// what pid has collected from children it already reaped (PostgreSQL's
// backends end and are reaped by the postmaster).
func TreeCPU(pid int) (time.Duration, error) {
	all, err := allStats()
	if err != nil {
		return 0, err
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, fmt.Errorf("opening /proc: %w", err)
	}
	children := map[int][]procfs.ProcStat{}
	var root *procfs.ProcStat
	for _, st := range all {
		if st.PID == pid {
			s := st
			root = &s
		}
		children[st.PPID] = append(children[st.PPID], st)
	}
	if root == nil {
		return 0, fmt.Errorf("server process %d not found", pid)
	}
	total := processCPU(fs, *root) + reaped(*root)
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			total += processCPU(fs, c)
			queue = append(queue, c.PID)
		}
	}
	return total, nil
}

// processCPU is the CPU time a live process has run. The utime and
// stime of /proc/PID/stat trail it on this project's test machine (Linux
// 6.18 under Firecracker): 64 PostgreSQL backends opened just before a
// one-second window showed 0.57 s there while their run time in
// /proc/PID/schedstat, like the core's own counters in /proc/stat, gave
// the whole second of the server's core; a process's stat caught up only
// as it exited, in its parent's cutime. schedstat counts nanoseconds per
// thread, and not the threads that have ended, which stat still holds: the
// larger of the two is the process's CPU.
func processCPU(fs procfs.FS, st procfs.ProcStat) time.Duration {
	return max(ticksDuration(st.UTime+st.STime), runTime(fs, st))
}

// runTime is the run time of a process's live threads, from schedstat
// (0 where the kernel has none).
func runTime(fs procfs.FS, st procfs.ProcStat) time.Duration {
	threads := procfs.Procs{}
	if st.NumThreads <= 1 {
		p, err := fs.Proc(st.PID)
		if err != nil {
			return 0
		}
		threads = append(threads, p)
	} else {
		var err error
		if threads, err = fs.AllThreads(st.PID); err != nil {
			return 0
		}
	}
	var ns uint64
	for _, t := range threads {
		if ss, err := t.Schedstat(); err == nil {
			ns += ss.RunningNanoseconds
		}
	}
	return time.Duration(ns)
}

// reaped is what a process has collected from its reaped children.
func reaped(st procfs.ProcStat) time.Duration {
	return ticksDuration(uint(st.CUTime) + uint(st.CSTime))
}

func ticksDuration(ticks uint) time.Duration {
	return time.Duration(ticks) * time.Second / ticksPerSecond
}

// Tree returns pid and all its descendants, parents before children.
func Tree(pid int) ([]int, error) {
	all, err := allStats()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	found := false
	for _, st := range all {
		children[st.PPID] = append(children[st.PPID], st.PID)
		found = found || st.PID == pid
	}
	if !found {
		return nil, fmt.Errorf("process %d not found", pid)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// MachineSample is the whole machine's CPU time so far (all cores, from
// /proc/stat), in seconds; two samples give a window's utilisation.
type MachineSample struct {
	Busy, Total float64
	// Steal is time the hypervisor gave this machine's CPUs to others.
	Steal float64
}

// Since returns the window from s0 to s: busy and steal as percentages of
// the machine's CPU time, and the busy CPU seconds.
func (s MachineSample) Since(s0 MachineSample) (busyPct, stealPct, busySecs float64, ok bool) {
	d := s.Total - s0.Total
	if d <= 0 {
		return 0, 0, 0, false
	}
	return 100 * (s.Busy - s0.Busy) / d, 100 * (s.Steal - s0.Steal) / d, s.Busy - s0.Busy, true
}

// MachineCPU samples the whole machine's CPU time.
func MachineCPU() (MachineSample, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return MachineSample{}, fmt.Errorf("opening /proc: %w", err)
	}
	st, err := fs.Stat()
	if err != nil {
		return MachineSample{}, fmt.Errorf("reading /proc/stat: %w", err)
	}
	c := st.CPUTotal
	idle := c.Idle + c.Iowait
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	return MachineSample{Busy: busy, Total: busy + idle, Steal: c.Steal}, nil
}

// FindProcess returns the pid of the oldest process whose command name is
// name (the server's parent process, not one of its workers).
func FindProcess(name string) (int, error) {
	all, err := allStats()
	if err != nil {
		return 0, err
	}
	best, bestStart := 0, uint64(0)
	for _, st := range all {
		if st.Comm != name || st.State == "Z" {
			continue
		}
		if best == 0 || st.Starttime < bestStart {
			best, bestStart = st.PID, st.Starttime
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no running process is named %q", name)
	}
	return best, nil
}

// allStats reads the stat line of every process; processes that end while
// being read are left out.
func allStats() ([]procfs.ProcStat, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("opening /proc: %w", err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	out := make([]procfs.ProcStat, 0, len(procs))
	for _, p := range procs {
		if st, err := p.Stat(); err == nil {
			out = append(out, st)
		}
	}
	return out, nil
}

// ProcTree is a process tree found once, whose CPU time is then read from
// its own processes' stat files: TreeCPU reads every process on the
// machine (1.5 ms here, a lot beside a 50 ms turn). When one of its
// processes has gone, it finds the tree again; a process started since it
// last looked is not counted (a server's connections' processes start
// before a run measures).
type ProcTree struct {
	fs   procfs.FS
	pids []int
}

// NewProcTree finds the tree under root.
func NewProcTree(root int) (*ProcTree, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("opening /proc: %w", err)
	}
	pids, err := Tree(root)
	if err != nil {
		return nil, err
	}
	return &ProcTree{fs: fs, pids: pids}, nil
}

// CPU is the tree's CPU time, as TreeCPU counts it.
func (t *ProcTree) CPU() (time.Duration, error) {
	cpu, err := t.read()
	if err != nil {
		if t.pids, err = Tree(t.pids[0]); err != nil {
			return 0, err
		}
		if cpu, err = t.read(); err != nil {
			return 0, err
		}
	}
	return cpu, nil
}

func (t *ProcTree) read() (time.Duration, error) {
	var total time.Duration
	for i, pid := range t.pids {
		p, err := t.fs.Proc(pid)
		if err != nil {
			return 0, err
		}
		st, err := p.Stat()
		if err != nil {
			return 0, err
		}
		total += processCPU(t.fs, st)
		if i == 0 {
			total += reaped(st)
		}
	}
	return total, nil
}
