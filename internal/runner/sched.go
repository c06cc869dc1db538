package runner

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// batchThread marks the calling thread SCHED_BATCH, keeping its nice value.
// A closed-loop worker's event takes a few microseconds of CPU before it
// blocks on the server's reply; a worker woken by its reply meanwhile
// gains nothing by preempting it, and the preemption costs the client an
// involuntary context switch and the server, which sends the wake-up, a
// rescheduling interrupt to the client's CPU (bench/README.md, issue 43).
// SCHED_BATCH turns off wake-up preemption for the thread and nothing else.
// It is set only where workers share a CPU: a lone worker has no other to
// wait for, only the runtime's own threads, which it should preempt. Rate
// mode keeps the default, where a worker's start time is a deadline.
// A refusal (a sandboxing seccomp filter) only leaves the default. It
// returns the undo, for a thread the runtime keeps after its goroutine
// ends (the main thread is never ended, only parked).
func batchThread() (undo func()) {
	attr, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return func() {}
	}
	prev := *attr
	attr.Size, attr.Flags = unix.SizeofSchedAttr, 0
	attr.Policy = unix.SCHED_BATCH
	if unix.SchedSetAttr(0, attr, 0) != nil {
		return func() {}
	}
	return func() {
		prev.Size, prev.Flags = unix.SizeofSchedAttr, 0
		_ = unix.SchedSetAttr(0, &prev, 0)
	}
}

// clientCPUCount is how many CPUs the workers run on: --client-cpus, or
// the process's affinity (taskset, a container's cpuset).
func clientCPUCount(pinned []int) int {
	if len(pinned) > 0 {
		return len(pinned)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		return runtime.NumCPU()
	}
	return set.Count()
}
