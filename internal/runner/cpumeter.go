package runner

import (
	"time"

	"github.com/encbench/encbench/internal/measure"
)

// cpuMeter reads what the CPUs did over a run's measured windows: this
// process's CPU, the server's process tree's, and the machine's (busy,
// steal, and what was neither encbench nor the server: foreign). A plain
// run has one window, a run in turns one per turn, summed until it is taken.
// Reading /proc costs encbench CPU, so a window's server and machine
// counters are read outside its client window, the machine's nearest to
// it.
type cpuMeter struct {
	pid int
	// tree reads only the server's processes, found once; nil: the tree
	// is found on every read.
	tree *measure.ProcTree
	// Sums over the windows since the last fill.
	busy, total, steal float64
	machineOK          bool
	// foreign is summed signed: /proc ticks at 10 ms, so a short window's
	// remainder is mostly rounding, which cancels over many windows only
	// if none is cut off at zero.
	foreign   time.Duration
	foreignOK bool
}

// cpuMark is a window's start.
type cpuMark struct {
	client, server time.Duration
	serverOK       bool
	machine        measure.MachineSample
	machineOK      bool
}

// newCPUMeter measures the server tree of pid (0: no server); with
// findTree it finds the tree's processes once, now (their connections'
// backends must exist by then), and reads only those.
func newCPUMeter(pid int, findTree bool) *cpuMeter {
	m := &cpuMeter{pid: pid}
	if pid > 0 && findTree {
		m.tree, _ = measure.NewProcTree(pid)
	}
	return m
}

func (m *cpuMeter) serverCPU() (time.Duration, bool) {
	if m.pid <= 0 {
		return 0, false
	}
	var v time.Duration
	var err error
	if m.tree != nil {
		v, err = m.tree.CPU()
	} else {
		v, err = measure.TreeCPU(m.pid)
	}
	return v, err == nil
}

// start begins a window.
func (m *cpuMeter) start() cpuMark {
	var a cpuMark
	a.server, a.serverOK = m.serverCPU()
	mach, err := measure.MachineCPU()
	a.machine, a.machineOK = mach, err == nil
	a.client = measure.ProcessCPU()
	return a
}

// stop ends the window begun at a, adds it to the sums and returns its
// client and server CPU (server -1 when it could not be read).
func (m *cpuMeter) stop(a cpuMark) (client, server time.Duration) {
	client = measure.ProcessCPU() - a.client
	mach, machErr := measure.MachineCPU()
	srv, srvOK := m.serverCPU()
	server = -1
	if a.serverOK && srvOK {
		server = srv - a.server
	}
	if machErr == nil && a.machineOK && mach.Total > a.machine.Total {
		m.machineOK = true
		m.busy += mach.Busy - a.machine.Busy
		m.total += mach.Total - a.machine.Total
		m.steal += mach.Steal - a.machine.Steal
		if server >= 0 {
			m.foreign += time.Duration((mach.Busy-a.machine.Busy)*float64(time.Second)) - client - server
			m.foreignOK = true
		}
	}
	return client, server
}

// fill sets the machine's share of the windows since the last fill (busy,
// steal, foreign CPU) in o, and starts new sums.
func (m *cpuMeter) fill(o *Outcome) {
	if m.machineOK && m.total > 0 {
		busy, steal := 100*m.busy/m.total, 100*m.steal/m.total
		o.MachineUtil, o.StealPct = &busy, &steal
		if m.foreignOK {
			f := max(0, m.foreign)
			o.ForeignCPU = &f
		}
	}
	m.busy, m.total, m.steal, m.machineOK, m.foreign, m.foreignOK = 0, 0, 0, false, 0, false
}
