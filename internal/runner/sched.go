package runner

import (
	"os"
	"runtime"
	"strconv"

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

// closedLoopOnShared says cfg's workers run closed-loop and outnumber the
// CPUs they run on: the case SCHED_BATCH is for (see batchThread).
func closedLoopOnShared(cfg Config) bool {
	return cfg.Rate == 0 && cfg.Threads > clientCPUCount(cfg.CPUs)
}

// procsPerWorker is what a single closed-loop run whose workers are not
// pinned sets for the run's length: a P per worker and none to spare (as
// many as there were, if more). A worker passes through the scheduler every
// yieldEvery, and a spare P is woken at each pass (the runtime's wakep): an
// extra thread's wake-up and sleep. Without one the collector and the
// timers run when a worker passes, at most yieldEvery later. It returns the
// undo.
func procsPerWorker(threads int) (undo func()) {
	prev := runtime.GOMAXPROCS(0)
	if prev >= threads {
		return func() {}
	}
	runtime.GOMAXPROCS(threads)
	return func() { runtime.GOMAXPROCS(prev) }
}

// batchProcess marks every thread of the process SCHED_BATCH for a single
// closed-loop run whose unpinned workers share the client's CPUs. Threads
// the runtime starts meanwhile inherit the policy from the thread that
// clones them, so the workers need not lock threads of their own; that
// matters because a locked worker's pass through the scheduler hands its
// thread over through another thread and back (two futex wake-ups), where
// an unlocked one goes on in place. With procsPerWorker, tpcb-like at 8
// threads on one CPU went from 7.9 to 7.04 context switches and from 15.6
// to 14.3 system calls per transaction (bench/README.md, issue 68). It
// returns the undo, which puts every thread's policy back, those started
// meanwhile included.
func batchProcess() (undo func()) {
	prev, err := unix.SchedGetAttr(0, 0)
	if err != nil || prev.Policy == unix.SCHED_BATCH {
		return func() {}
	}
	setThreads(func(attr *unix.SchedAttr) bool {
		attr.Policy = unix.SCHED_BATCH
		return true
	})
	return func() {
		// A thread cloned while the policy is being put back may inherit
		// SCHED_BATCH from one not yet reached: go over them until a pass
		// finds none.
		for range 10 {
			if !setThreads(func(attr *unix.SchedAttr) bool {
				if attr.Policy != unix.SCHED_BATCH {
					return false
				}
				attr.Policy, attr.Priority = prev.Policy, prev.Priority
				return true
			}) {
				break
			}
		}
	}
}

// setThreads applies change to each thread of the process whose policy it
// says should change (keeping each thread's nice value) and says whether
// any did. A thread that ends meanwhile, or a refusal (a seccomp filter),
// is passed over: the policy is a hint, not a requirement.
func setThreads(change func(*unix.SchedAttr) bool) (changed bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil || !change(attr) {
			continue
		}
		attr.Size, attr.Flags = unix.SizeofSchedAttr, 0
		if unix.SchedSetAttr(tid, attr, 0) == nil {
			changed = true
		}
	}
	return changed
}
