package runner

import (
	"context"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/measure"
)

// resourceMeter reads what the resources did over a run's measured windows:
// this process's CPU, the server's process tree's CPU and storage I/O, the
// busy time of the disk under the server's data, the machine's CPU (busy,
// steal, and what was neither encbench nor the server: foreign), what
// crossed the run's sockets, and the server's lock waits where it counts
// them. A plain run has one window, a run in turns
// one per turn, summed until it is taken. Reading /proc costs encbench
// CPU, so a window's server and machine counters are read outside its
// client window, the machine's nearest to it.
type resourceMeter struct {
	// pids are the server's process (0: no server) and a replicated
	// server's replicas, whose processes' CPU and I/O count as the
	// server's: the work the primary's writes cause there, and a
	// standby's queries.
	pids []int
	// trees read only those servers' processes, found once; nil: the
	// trees are found on every read.
	trees []*measure.ProcTree
	// disk is the device under the server's data directory (nil: none
	// found, or no server).
	disk    *measure.BlockDevice
	traffic *netconn.Meter
	// Sums over the windows since the last fill.
	busy, total, steal float64
	machineOK          bool
	// foreign is summed signed: /proc ticks at 10 ms, so a short window's
	// remainder is mostly rounding, which cancels over many windows only
	// if none is cut off at zero.
	foreign   time.Duration
	foreignOK bool
	span      time.Duration
	sent      netconn.Traffic
	// read and written are the server's storage I/O; ioOK is false once a
	// window could not be read.
	read, written int64
	ioOK, ioSeen  bool
	diskSum       measure.DiskSample
	diskOK        bool
	// locks reads the server's lock wait counters (nil: not counted);
	// lockOK is false once a window could not be read.
	locks            func(context.Context) (engine.LockWaits, error)
	lockSum          engine.LockWaits
	lockOK, lockSeen bool
}

// lockReadBound bounds one reading of the lock counters: a query on the
// run's admin connection, which a server that stopped answering must not
// hold (the run's own deadlines see to the workers).
const lockReadBound = 2 * time.Second

// resourceMark is a window's start.
type resourceMark struct {
	at             time.Time
	client, server time.Duration
	serverOK       bool
	machine        measure.MachineSample
	machineOK      bool
	traffic        netconn.Traffic
	read, written  int64
	ioOK           bool
	disk           measure.DiskSample
	diskOK         bool
	locks          engine.LockWaits
	locksOK        bool
}

// newResourceMeter measures the server tree of pid (0: no server) and the
// sockets traffic counts (nil: none); with findTree it finds the tree's
// processes once, now (their connections' backends must exist by then),
// and reads only those.
func newResourceMeter(pid int, members []int, findTree bool, traffic *netconn.Meter, locks func(context.Context) (engine.LockWaits, error)) *resourceMeter {
	m := &resourceMeter{traffic: traffic, locks: locks}
	if pid > 0 {
		m.pids = append([]int{pid}, members...)
		if findTree {
			for _, p := range m.pids {
				t, _ := measure.NewProcTree(p) // nil: that server is read as gone
				m.trees = append(m.trees, t)
			}
		}
		m.disk, _ = measure.DiskOf(pid)
	}
	return m
}

// serverTrees calls f on each server's process tree; false when the
// server (the first) cannot be read. A replica that cannot be read (one
// restarting) adds nothing.
func (m *resourceMeter) serverTrees(f func(*measure.ProcTree) error) bool {
	if len(m.pids) == 0 {
		return false
	}
	for i, pid := range m.pids {
		var t *measure.ProcTree
		if m.trees != nil {
			t = m.trees[i]
		} else {
			t, _ = measure.NewProcTree(pid)
		}
		if (t == nil || f(t) != nil) && i == 0 {
			return false
		}
	}
	return true
}

func (m *resourceMeter) serverCPU() (time.Duration, bool) {
	var sum time.Duration
	ok := m.serverTrees(func(t *measure.ProcTree) error {
		v, err := t.CPU()
		sum += v
		return err
	})
	return sum, ok
}

// serverIO reads the servers' storage I/O.
func (m *resourceMeter) serverIO() (read, written int64, ok bool) {
	ok = m.serverTrees(func(t *measure.ProcTree) error {
		r, w, err := t.IO()
		read, written = read+r, written+w
		return err
	})
	return read, written, ok
}

func (m *resourceMeter) diskNow() (measure.DiskSample, bool) {
	if m.disk == nil {
		return measure.DiskSample{}, false
	}
	d, err := m.disk.Sample()
	return d, err == nil
}

func (m *resourceMeter) locksNow() (engine.LockWaits, bool) {
	if m.locks == nil {
		return engine.LockWaits{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockReadBound)
	defer cancel()
	w, err := m.locks(ctx)
	return w, err == nil
}

func (m *resourceMeter) trafficNow() netconn.Traffic {
	if m.traffic == nil {
		return netconn.Traffic{}
	}
	return m.traffic.Total()
}

// start begins a window.
func (m *resourceMeter) start() resourceMark {
	var a resourceMark
	a.locks, a.locksOK = m.locksNow()
	a.read, a.written, a.ioOK = m.serverIO()
	a.disk, a.diskOK = m.diskNow()
	a.server, a.serverOK = m.serverCPU()
	mach, err := measure.MachineCPU()
	a.machine, a.machineOK = mach, err == nil
	a.traffic = m.trafficNow()
	a.at = time.Now()
	a.client = measure.ProcessCPU()
	return a
}

// stop ends the window begun at a, adds it to the sums and returns its
// client and server CPU (server -1 when it could not be read).
func (m *resourceMeter) stop(a resourceMark) (client, server time.Duration) {
	client = measure.ProcessCPU() - a.client
	m.span += time.Since(a.at)
	m.sent = m.sent.Add(m.trafficNow().Sub(a.traffic))
	mach, machErr := measure.MachineCPU()
	srv, srvOK := m.serverCPU()
	m.stopIO(a)
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

// stopIO adds the window's storage I/O, disk counts and lock waits. One
// window that cannot be read spoils the sums: a share of the windows
// would understate them.
func (m *resourceMeter) stopIO(a resourceMark) {
	read, written, ok := m.serverIO()
	if !m.ioSeen {
		m.ioSeen, m.ioOK = true, true
	}
	if ok && a.ioOK && read >= a.read && written >= a.written {
		m.read += read - a.read
		m.written += written - a.written
	} else {
		m.ioOK = false
	}
	if m.locks != nil {
		if !m.lockSeen {
			m.lockSeen, m.lockOK = true, true
		}
		if w, ok := m.locksNow(); ok && a.locksOK && w.Waits >= a.locks.Waits {
			m.lockSum = m.lockSum.Add(w.Sub(a.locks))
		} else {
			m.lockOK = false
		}
	}
	if d, ok := m.diskNow(); ok && a.diskOK {
		m.diskOK = true
		m.diskSum.Read += d.Read - a.disk.Read
		m.diskSum.Written += d.Written - a.disk.Written
		m.diskSum.Busy += d.Busy - a.disk.Busy
	}
}

// fill sets the machine's share of the windows since the last fill (busy,
// steal, foreign CPU), the server's I/O, the disk's busy share and the
// traffic in o, and starts new sums.
func (m *resourceMeter) fill(o *Outcome) {
	if m.machineOK && m.total > 0 {
		busy, steal := 100*m.busy/m.total, 100*m.steal/m.total
		o.MachineUtil, o.StealPct = &busy, &steal
		if m.foreignOK {
			f := max(0, m.foreign)
			o.ForeignCPU = &f
		}
	}
	if m.traffic != nil {
		t := m.sent
		o.Traffic = &t
	}
	if m.ioSeen && m.ioOK {
		o.ServerIO = &StorageIO{Read: m.read, Written: m.written}
	}
	if m.diskOK && m.span > 0 {
		o.Disk = &DiskUse{Name: m.disk.Name, Read: m.diskSum.Read, Written: m.diskSum.Written,
			BusyPct: min(100, 100*m.diskSum.Busy.Seconds()/m.span.Seconds())}
	}
	if m.lockSeen && m.lockOK {
		w := m.lockSum
		o.LockWaits = &w
	}
	*m = resourceMeter{pids: m.pids, trees: m.trees, disk: m.disk, traffic: m.traffic, locks: m.locks}
}
