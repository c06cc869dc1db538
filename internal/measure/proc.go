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
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, fmt.Errorf("opening /proc: %w", err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return 0, fmt.Errorf("listing processes: %w", err)
	}
	children := map[int][]procfs.ProcStat{}
	var root *procfs.ProcStat
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // the process ended while we looked
		}
		if st.PID == pid {
			s := st
			root = &s
		}
		children[st.PPID] = append(children[st.PPID], st)
	}
	if root == nil {
		return 0, fmt.Errorf("server process %d not found", pid)
	}
	ticks := root.UTime + root.STime + uint(root.CUTime) + uint(root.CSTime)
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			ticks += c.UTime + c.STime
			queue = append(queue, c.PID)
		}
	}
	return time.Duration(ticks) * time.Second / ticksPerSecond, nil
}
