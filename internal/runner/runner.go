// Package runner drives workers for a time or event budget, the way
// sysbench's run phase does: one pinned connection per worker, per-worker
// histograms merged per interval, optional warmup and rate limit.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/workload"
)

// Config is sysbench's general options.
type Config struct {
	// Settings are the run's settings as the spec holds them.
	runset.Settings
	Threads int
	// Ignore is Settings.IgnoreErrors parsed (or the engine's default).
	Ignore engine.IgnoreSet
	Out    io.Writer
	// ServerPID, when > 0, is the server process whose tree's CPU is measured.
	ServerPID int
	// MemberPIDs are a replicated server's replicas, whose trees' CPU is
	// the server's too.
	MemberPIDs []int
	// CPUs is Settings.ClientCPUs parsed: worker i's thread is pinned to
	// CPUs[i % n]; on a small machine where client and server threads land
	// changes results more than most settings do.
	CPUs []int
	// CheckSessions sees the server's view of every worker connection before
	// anything is measured; an error stops the run (a variant not proven).
	CheckSessions func([]engine.SessionTLS) error
	// LockWaits, when set, reads the server's lock wait counters (on a
	// connection of its own), around each measured window.
	LockWaits func(context.Context) (engine.LockWaits, error)
	// IDOffset and TotalThreads place this run's workers among every
	// generator's (worker i is IDOffset+i of TotalThreads; 0: alone).
	IDOffset, TotalThreads int
	// StartTime, when set, is when measuring (or warmup) begins, shared by
	// generators on other machines; the connections are made before it.
	StartTime time.Time
	// OnInterval, when set, sees every interval as it is measured (for a
	// progress display); it runs on the collector, never on a worker.
	OnInterval func(Interval)
	// DelayLines says the process also carries the run's traffic through an
	// emulated network, whose delayed writes must not wait behind workers:
	// the whole process is then not made SCHED_BATCH (batchProcess), only
	// the workers' own threads.
	DelayLines bool
}

// Outcome is what a run measured after warmup.
type Outcome struct {
	Partial bool
	Elapsed time.Duration
	// Window and Work, in a run in turns: the time its gate was open and
	// the transactions done in it (see Turn); 0 otherwise.
	Window time.Duration
	Work   float64
	Hist   *hdrhistogram.Histogram
	Txns   int64
	Reads  int64
	Writes int64
	Others int64
	// Errors counts every error an event met (each failed try);
	// Failed the transactions that ended without committing, by kind
	// (engine.ErrorKind's names); Retried the transactions tried more
	// than once and Retries their extra tries; ErrorCodes every error by
	// the server's code (or kind, without one).
	Errors     int64
	Failed     map[string]int64
	Retried    int64
	Retries    int64
	ErrorCodes map[string]int64
	Reconnects int64
	Intervals  []Interval
	ClientCPU  time.Duration
	ServerCPU  *time.Duration
	// MachineUtil is the whole machine's CPU utilisation in percent, and
	// StealPct the share of its CPU time the hypervisor gave to others.
	MachineUtil *float64
	StealPct    *float64
	// ForeignCPU is machine busy time that was neither encbench nor the
	// server: other work on the measured CPUs.
	ForeignCPU   *time.Duration
	Sessions     []engine.SessionTLS
	WorkerEvents []int64
	WorkerBusy   []time.Duration
	// Parts are the histograms of the workload's timed event parts (Capabilities.Parts).
	Parts map[string]*hdrhistogram.Histogram
	// Notes add up the workers' own counts (workload.Noter).
	Notes map[string]int64
	// Traffic is what crossed the run's sockets in the measured windows
	// (nil: not counted).
	Traffic *netconn.Traffic
	// ServerIO is the server's storage I/O in them and Disk what the
	// device under its data did (nil: not measured).
	ServerIO *StorageIO
	Disk     *DiskUse
	// LockWaits are the server's lock waits in them (nil: not counted).
	LockWaits *engine.LockWaits
}

// StorageIO is a process tree's storage I/O in bytes (measure.ProcTree.IO).
type StorageIO struct {
	Read, Written int64
}

// DiskUse is what a block device did over measured windows: bytes read
// and written, and the share of the windows it had I/O in flight.
type DiskUse struct {
	Name          string
	Read, Written int64
	BusyPct       float64
}

// Interval is one report interval's rates.
type Interval struct {
	At       time.Duration
	TPS, QPS float64
	Reads    float64
	Writes   float64
	Others   float64
	Pct      float64
	Errors   float64
	Reconn   float64
	Failed   float64
	Retries  float64
	Queue    int
}

// stats is one worker's measurements; its mutex is taken by the worker
// once per event and by the collector once per interval, never by other
// workers.
type stats struct {
	mu   sync.Mutex
	hist *hdrhistogram.Histogram
	txns int64
	// overhang: see intervalStats.
	overhang float64
	c        workload.Counters
	tally    tally
	parts    []*hdrhistogram.Histogram
	// Totals since measuring began, for thread fairness.
	events int64
	busy   time.Duration
}

type slot struct {
	st     stats
	conn   engine.Conn
	worker workload.Worker
	// codes counts errors by server code; only the worker writes it, and
	// it is read once the worker has returned.
	codes map[string]int64
	// reconnects counts the lost connections the worker replaced in the
	// run, for --max-reconnects; the worker's own, like codes.
	reconnects int
	// done is set when the worker's loop has returned: a worker still
	// blocked on a server that stopped answering is left alone.
	done atomic.Bool
	// started is set before the worker's loop begins.
	started bool
	// noted is the worker's notes as last taken; carried, what workers
	// replaced since (after a lost connection) noted and nobody took.
	noted, carried map[string]int64
}

// takeNotes adds to out what the slot's workers noted since the last
// take: a worker keeps running counts, a block wants its own.
func (s *slot) takeNotes(out *Outcome) {
	addSince(&out.Notes, s.carried, nil)
	clear(s.carried)
	if n, ok := s.worker.(workload.Noter); ok {
		now := n.Notes()
		addSince(&out.Notes, now, s.noted)
		s.noted = maps.Clone(now)
	}
}

// retireNotes keeps what the worker about to be replaced noted since the
// last take, for the next.
func (s *slot) retireNotes() {
	if n, ok := s.worker.(workload.Noter); ok {
		addSince(&s.carried, n.Notes(), s.noted)
	}
	s.noted = nil
}

// addSince adds to *dst each count's growth from then to now, making the
// map only when there is something to add.
func addSince(dst *map[string]int64, now, then map[string]int64) {
	for k, v := range now {
		if d := v - then[k]; d != 0 {
			if *dst == nil {
				*dst = map[string]int64{}
			}
			(*dst)[k] += d
		}
	}
}

// idle says the worker's loop is not running: never started, or returned.
func (s *slot) idle() bool { return !s.started || s.done.Load() }

// Run executes wl against t and returns the measurements. A cancelled ctx
// stops the workers and returns what was measured, marked partial.
func Run(ctx context.Context, t engine.Target, wl workload.Workload, cfg Config) (*Outcome, error) {
	if cfg.Time <= 0 && cfg.Events <= 0 {
		return nil, fmt.Errorf("either --time or --events must be set")
	}
	unpinnedClosedLoop := cfg.Rate == 0 && len(cfg.CPUs) == 0
	wholeBatch := unpinnedClosedLoop && closedLoopOnShared(cfg) && !cfg.DelayLines
	if unpinnedClosedLoop {
		defer procsPerWorker(cfg.Threads)()
	} else {
		defer PinProcs(cfg.Threads)()
	}
	if wholeBatch {
		defer batchProcess()()
	}
	s, err := Open(ctx, t, wl, cfg)
	if s == nil {
		return nil, err
	}
	defer s.Close()
	if err != nil {
		return &Outcome{Sessions: s.sessions, Hist: measure.NewHistogram()}, err
	}
	if !cfg.StartTime.IsZero() {
		wait := time.Until(cfg.StartTime)
		if wait < 0 {
			return &Outcome{Sessions: s.sessions, Hist: measure.NewHistogram()}, fmt.Errorf("connecting took until %v after --start-at: give the generators more time before it", (-wait).Round(time.Millisecond))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return &Outcome{Sessions: s.sessions, Hist: measure.NewHistogram(), Partial: true}, ctx.Err()
		}
	}
	r := s.newRun()
	r.wholeBatch = wholeBatch
	out, err := r.execute(ctx)
	if out != nil {
		out.Sessions = s.sessions
		out.Notes = notes(s.slots)
	}
	return out, err
}

// PinProcs gives each worker a P of its own: each blocks in its own
// thread, and with a P free for every one of them (and one for the
// collector) a reply does not wait for the Go scheduler to hand a P over,
// and workers' raw reads may keep theirs. It returns the undo.
func PinProcs(threads int) func() {
	if prev := runtime.GOMAXPROCS(0); prev < threads+1 {
		runtime.GOMAXPROCS(threads + 1)
		return func() { runtime.GOMAXPROCS(prev) }
	}
	return func() {}
}

// Session is a run's workers, connected, their statements prepared and
// their sessions checked, not yet started.
type Session struct {
	cfg       Config
	t         engine.Target
	wl        workload.Workload
	slots     []*slot
	sessions  []engine.SessionTLS
	partNames []string
	// traffic counts every socket the session's connections dial, the
	// workers' and those a workload opens per event.
	traffic *netconn.Meter
}

// Open connects cfg.Threads workers and checks their sessions. On a
// failed check it returns the session too (its Sessions say what the
// server saw); the caller closes it.
func Open(ctx context.Context, t engine.Target, wl workload.Workload, cfg Config) (*Session, error) {
	s := &Session{cfg: cfg, t: t, wl: wl, slots: make([]*slot, cfg.Threads), sessions: make([]engine.SessionTLS, cfg.Threads)}
	s.t.Worker = true
	s.traffic = netconn.NewMeter()
	s.t.AddDialWrap(func(d engine.DialFunc) engine.DialFunc { return s.traffic.Dial(d) })
	for _, p := range wl.Capabilities().Parts {
		s.partNames = append(s.partNames, p.Name)
	}
	if s.cfg.ReconnectTimeout <= 0 {
		s.cfg.ReconnectTimeout = DefaultReconnectTimeout
	}
	cfg = s.cfg
	// Every connection and its statements must be ready within the bound.
	cctx, cancel := context.WithTimeout(ctx, cfg.ReconnectTimeout)
	defer cancel()
	g, gctx := errgroup.WithContext(cctx)
	failures := make([]error, len(s.slots))
	for i := range s.slots {
		g.Go(func() (err error) {
			defer func() { failures[i] = stoppedBy(gctx, cctx, err) }()
			c, err := s.t.Engine.Connect(gctx, s.t)
			if err != nil {
				return connectError(cctx, err, cfg.ReconnectTimeout)
			}
			sl := &slot{conn: c, codes: map[string]int64{}}
			sl.st.hist = measure.NewHistogram()
			for range s.partNames {
				sl.st.parts = append(sl.st.parts, measure.NewHistogram())
			}
			s.slots[i] = sl
			if s.sessions[i], err = c.TLSState(gctx); err != nil {
				return connectError(cctx, err, cfg.ReconnectTimeout)
			}
			sl.worker, err = wl.NewWorker(gctx, workerEnv(cfg, s.t, c, i))
			return connectError(cctx, err, cfg.ReconnectTimeout)
		})
	}
	if err := g.Wait(); err != nil {
		s.Close()
		return nil, rootCause(err, failures)
	}
	if cfg.CheckSessions != nil {
		if err := cfg.CheckSessions(s.sessions); err != nil {
			return s, err
		}
	}
	return s, nil
}

// stoppedBy marks err as caused by the cancellation when another worker's
// failure had already cancelled gctx as err came back: a worker cut off
// in a statement sees only its socket shut ("unexpected EOF"), and the
// workload may word that as a usage error ("no table of this version"),
// which would otherwise win over the failure that stopped it.
func stoppedBy(gctx, cctx context.Context, err error) error {
	if err == nil || gctx.Err() == nil || cctx.Err() != nil || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w by another worker's failure (%w)", context.Canceled, err)
}

// rootCause is the error to report when workers failed to start. The
// first failure cancels the other workers, so an error that the
// cancellation caused never wins. Of the rest, one that says what the user
// must change (a usage error, such as a workload's refusal of its options)
// comes before the first: a connection cut off in its handshake would
// otherwise hide the cause.
func rootCause(first error, all []error) error {
	var own []error
	for _, err := range all {
		if err != nil && !errors.Is(err, context.Canceled) {
			own = append(own, err)
		}
	}
	for _, err := range own {
		if errs.ExitCode(err) == 2 {
			return err
		}
	}
	if len(own) > 0 && errors.Is(first, context.Canceled) {
		return own[0]
	}
	return first
}

// Sessions are the server's view of every worker connection.
func (s *Session) Sessions() []engine.SessionTLS { return s.sessions }

// Close closes the workers, then their connections. Workers close first:
// some put back what their events removed (enc_write_mix's deleted rows),
// outside the measured time. A worker still blocked on its server is not
// touched: it owns its connection.
func (s *Session) Close() {
	for _, sl := range s.slots {
		if sl != nil && sl.worker != nil && sl.idle() {
			_ = sl.worker.Close()
		}
		if sl != nil && sl.conn != nil && sl.idle() {
			sl.conn.Close()
		}
	}
}

func (s *Session) newRun() *run {
	return &run{cfg: s.cfg, slots: s.slots, t: s.t, wl: s.wl, partNames: s.partNames, batch: closedLoopOnShared(s.cfg), traffic: s.traffic}
}

type run struct {
	cfg       Config
	slots     []*slot
	t         engine.Target
	wl        workload.Workload
	stop      atomic.Bool
	measuring atomic.Bool
	remaining atomic.Int64
	failure   atomic.Pointer[error]
	sched     chan time.Time
	// halted closes when the run stops, releasing a scheduler blocked on
	// a full queue.
	halted    chan struct{}
	queue     atomic.Int64
	partNames []string
	begin     time.Time
	// gate, when set, lets workers start events only in a controller's
	// turns (Turns).
	gate *gate
	// batch: workers run SCHED_BATCH, on threads of their own that they
	// lock and mark, unless wholeBatch says the caller marked every thread
	// of the process (batchProcess).
	batch, wholeBatch bool
	traffic           *netconn.Meter
}

func notes(slots []*slot) map[string]int64 {
	var out Outcome
	for _, s := range slots {
		if s.idle() {
			s.takeNotes(&out)
		}
	}
	return out.Notes
}

// ErrWarmupInterrupted: the run was stopped before its measured window.
var ErrWarmupInterrupted = errors.New("interrupted during the warm-up: nothing was measured, so no result is written")

func (r *run) fail(err error) {
	r.failure.CompareAndSwap(nil, &err)
	r.stop.Store(true)
}

func (r *run) execute(ctx context.Context) (*Outcome, error) {
	cfg := r.cfg
	r.remaining.Store(cfg.Events)
	out := &Outcome{Hist: measure.NewHistogram()}
	tick := cmp.Or(max(cfg.ReportInterval, 0), time.Second)
	measuring := cfg.Warmup <= 0
	var start time.Time
	cpu := newResourceMeter(cfg.ServerPID, cfg.MemberPIDs, false, r.traffic, cfg.LockWaits)
	var mark resourceMark
	var procs0 []int
	startMeasuring := func() {
		start, mark, procs0 = r.startMeasuring(cpu)
		measuring = true
	}
	if measuring {
		startMeasuring()
	}
	var wg sync.WaitGroup
	r.begin = time.Now()
	if cfg.Rate > 0 {
		r.startSchedule(&wg)
	}
	workersDone := r.startWorkers()
	var warmupEnd, deadline <-chan time.Time
	if !measuring {
		warmupEnd = after(cfg.Warmup)
	}
	if cfg.Time > 0 {
		deadline = after(cfg.Warmup + cfg.Time)
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	lastTick := time.Now()
	warmupCut := false
loop:
	for {
		select {
		case <-ctx.Done():
			out.Partial = true
			warmupCut = !measuring
			break loop
		case <-deadline:
			break loop
		case <-workersDone:
			break loop
		case <-warmupEnd:
			startMeasuring()
			lastTick = time.Now()
			ticker.Reset(tick)
		case now := <-ticker.C:
			if !measuring {
				continue
			}
			iv := r.collect(out)
			r.interval(out, iv, now.Sub(start), now.Sub(lastTick))
			lastTick = now
		}
	}
	r.end(workersDone)
	wg.Wait()
	if warmupCut {
		return nil, ErrWarmupInterrupted
	}
	if !measuring {
		startMeasuring()
	}
	end := time.Now()
	iv := r.collect(out)
	// A sliver of an interval after the last tick would show a rate from a
	// handful of events; its events still count in the totals.
	if end.Sub(lastTick) > tick/10 || len(out.Intervals) == 0 {
		r.interval(out, iv, end.Sub(start), end.Sub(lastTick))
	}
	out.Elapsed = end.Sub(start)
	r.cpuOfRun(out, cpu, mark, procs0)
	r.harvest(out, false)
	if p := r.failure.Load(); p != nil {
		return out, *p
	}
	return out, nil
}

// startMeasuring drops the warm-up's events and starts the measured
// window: its time, CPU mark and the server's processes.
func (r *run) startMeasuring(cpu *resourceMeter) (time.Time, resourceMark, []int) {
	r.collect(nil)
	start := time.Now()
	mark := cpu.start()
	var procs []int
	if mark.serverOK {
		procs = serverProcs(r.cfg.ServerPID)
	}
	r.resetWorkerStats()
	r.measuring.Store(true)
	return start, mark, procs
}

// after fires once, d from now (a timer left to fire: the run's timers
// are few and end with it).
func after(d time.Duration) <-chan time.Time { return time.NewTimer(d).C }

// resetWorkerStats starts the workers' event counts and busy time anew
// (the warm-up's are dropped).
func (r *run) resetWorkerStats() {
	for _, s := range r.slots {
		s.st.mu.Lock()
		s.st.events, s.st.busy = 0, 0
		s.st.mu.Unlock()
	}
}

// startSchedule starts --rate's scheduler of intended start times; wg
// waits for it.
func (r *run) startSchedule(wg *sync.WaitGroup) {
	r.sched = make(chan time.Time, 1<<16)
	r.halted = make(chan struct{})
	wg.Add(1)
	go func() { defer wg.Done(); r.schedule(r.begin) }()
}

// end stops the workers and waits for them: a worker blocked on a server
// that stopped answering must not hold the run forever, so past
// --reconnect-timeout the run ends without it, as a failure.
func (r *run) end(workersDone <-chan struct{}) {
	r.stop.Store(true)
	if r.sched != nil {
		close(r.halted)
		// Unblock workers waiting for a scheduled start.
		go func() {
			for !isClosed(workersDone) {
				select {
				case r.sched <- time.Now():
				case <-workersDone:
				}
			}
		}()
	}
	grace := time.NewTimer(r.cfg.ReconnectTimeout)
	select {
	case <-workersDone:
		grace.Stop()
	case <-grace.C:
		stuck := 0
		for _, s := range r.slots {
			if !s.idle() {
				stuck++
			}
		}
		r.fail(fmt.Errorf("%d of %d workers were still waiting for the server %v after the run's end (--reconnect-timeout): the server stopped answering", stuck, len(r.slots), r.cfg.ReconnectTimeout))
	}
}

// cpuOfRun ends the run's CPU window begun at mark.
func (r *run) cpuOfRun(out *Outcome, cpu *resourceMeter, mark resourceMark, procs0 []int) {
	client, server := cpu.stop(mark)
	out.ClientCPU = client
	cpu.fill(out)
	if !mark.serverOK {
		return
	}
	// The workers' connections are still open, so their backends are
	// counted. Backends that came and went (a connection per event) are
	// charged to the server once reaped: wait for that, so they count for
	// this run and not the next.
	if server < 0 || !slices.Equal(procs0, serverProcs(r.cfg.ServerPID)) {
		time.Sleep(500 * time.Millisecond)
		if v, ok := cpu.serverCPU(); ok {
			server = v - mark.server
		}
		if read, written, ok := cpu.serverIO(); ok && mark.ioOK && read >= mark.read && written >= mark.written {
			out.ServerIO = &StorageIO{Read: read - mark.read, Written: written - mark.written}
		}
	}
	if server >= 0 {
		out.ServerCPU = &server
	}
}

// startWorkers starts a goroutine per worker slot; the channel closes
// once every worker has returned.
func (r *run) startWorkers() <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range r.slots {
		wg.Add(1)
		s.started = true
		go func() {
			defer wg.Done()
			defer s.done.Store(true)
			r.work(i, s)
		}()
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

// harvest adds every worker's totals to out: its events, busy time and
// errors by code. A worker's codes are its own while it runs, so they are
// read once it has returned, or, in a run in turns (between), while the gate
// is closed and drained; a run in turns then starts them again at its take.
func (r *run) harvest(out *Outcome, between bool) {
	for _, s := range r.slots {
		s.st.mu.Lock()
		out.WorkerEvents = append(out.WorkerEvents, s.st.events)
		out.WorkerBusy = append(out.WorkerBusy, s.st.busy)
		if between {
			s.st.events, s.st.busy = 0, 0
		}
		s.st.mu.Unlock()
		if !between && !s.idle() {
			continue
		}
		for code, n := range s.codes {
			if out.ErrorCodes == nil {
				out.ErrorCodes = map[string]int64{}
			}
			out.ErrorCodes[code] += n
		}
		if between {
			clear(s.codes)
			s.takeNotes(out)
		}
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// schedule issues intended start times at exponentially distributed gaps
// (a Poisson arrival process, as sysbench's --rate does).
func (r *run) schedule(begin time.Time) {
	rng := rand.New(rand.NewPCG(uint64(begin.UnixNano()), 7))
	next := begin
	for !r.stop.Load() {
		next = next.Add(time.Duration(rng.ExpFloat64() / r.cfg.Rate * float64(time.Second)))
		if d := time.Until(next); d > time.Millisecond {
			time.Sleep(d)
		}
		r.queue.Add(1)
		select {
		case r.sched <- next:
		case <-r.halted:
			return
		}
	}
}

// yieldEvery is how often a worker passes through the scheduler. A worker
// that only ever blocks in system calls looks to the runtime's sysmon like a
// goroutine hogging its P for 10 ms: sysmon then preempts it, takes its P
// while it waits in read(2) and keeps polling every 20 us. Yielding more
// often than that keeps sysmon asleep; yielding much more often costs a
// futex wake-up per yield. Measured with perf stat on the 2-vCPU machine.
const yieldEvery = 8 * time.Millisecond

// work is one worker's loop. Latency counts from the intended start in rate
// mode, so a slow server cannot hide queueing (no coordinated omission).
//
// A worker that sets its thread's affinity or policy keeps its thread and
// the thread ends with it (no UnlockOSThread): what is set here never
// passes to another goroutine, or to a server a sandbox starts from it. The
// policy is also put back, for the main thread, which the runtime parks
// for good instead of ending.
func (r *run) work(id int, s *slot) {
	// A rate-mode worker parks twice an event (schedule and sleep), and a
	// locked one's park hands its thread over through the scheduler: only
	// workers that mark their own thread lock it.
	ownThread := r.batch && !r.wholeBatch
	if ownThread || len(r.cfg.CPUs) > 0 {
		runtime.LockOSThread()
	}
	if ownThread {
		defer batchThread()()
	}
	if n := len(r.cfg.CPUs); n > 0 {
		var set unix.CPUSet
		set.Set(r.cfg.CPUs[id%n])
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			r.fail(fmt.Errorf("pinning worker %d to CPU %d: %w", id, r.cfg.CPUs[id%n], err))
			return
		}
	}
	r.loop(id, s)
}

// loop runs events until the run stops.
func (r *run) loop(id int, s *slot) {
	var c workload.Counters
	first := true
	clock := monoClock{base: time.Now()}
	lastYield := clock.base
	for !r.stop.Load() {
		// Warmup events are neither counted against --events nor recorded.
		// The shared counter is touched only when events are limited.
		measured := r.measuring.Load()
		if measured && r.cfg.Events > 0 && r.remaining.Add(-1) < 0 {
			// Put it back: a worker still running may give its event back
			// (a failed transaction) and need it.
			r.remaining.Add(1)
			return
		}
		var start time.Time
		if r.sched != nil {
			start = <-r.sched
			r.queue.Add(-1)
			if r.stop.Load() {
				return
			}
			if d := time.Until(start); d > 0 {
				time.Sleep(d)
			}
		} else {
			if p, ok := s.worker.(workload.Pacer); ok {
				if r.pause(p.Pause()); r.stop.Load() {
					return
				}
			}
			// Think time is spent outside the gate, so closing it
			// waits only for transactions.
			if r.gate != nil && !r.gate.enter(&r.stop) {
				continue
			}
			start = clock.now()
		}
		c = workload.Counters{}
		var t tally
		if r.cfg.ReconnectPerTxn && !first {
			if err := r.replaceConn(id, s); err != nil {
				// A refused or reset new connection is retried, with
				// back-off, like a lost one, and counted as a reconnect.
				if rerr := r.reconnect(id, s, err); rerr != nil {
					r.fail(rerr)
					r.gate.leave()
					return
				}
				t.reconn++
			}
		}
		first = false
		committed, err := r.event(id, s, &c, &t)
		if measured && !committed && err == nil && r.cfg.Events > 0 {
			// As sysbench, --events counts committed events: a failed
			// transaction gives its event back.
			r.remaining.Add(1)
		}
		end := clock.now()
		lat := end.Sub(start)
		if end.Sub(lastYield) >= yieldEvery {
			runtime.Gosched()
			lastYield = end
		}
		if !measured && err == nil {
			r.gate.leave()
			continue
		}
		s.st.record(committed, lat, r.gate.overhang(end, lat), &c, &t)
		// Left only once recorded: a drained gate has every event counted.
		r.gate.leave()
		if err != nil {
			r.fail(err)
			return
		}
	}
}

// monoClock reads only the monotonic clock. time.Now also reads the wall
// clock, a second vDSO call, and a worker reads the time twice an event;
// latencies and turns need elapsed time only.
type monoClock struct{ base time.Time }

func (m monoClock) now() time.Time { return m.base.Add(time.Since(m.base)) }

// record adds one event to the worker's stats: its latency and parts when
// it committed (with the share of it a closing gate left outside the
// turn), its statements and its errors.
func (st *stats) record(committed bool, lat time.Duration, overhang float64, c *workload.Counters, t *tally) {
	st.mu.Lock()
	if committed {
		measure.Record(st.hist, lat)
		for i, d := range c.Parts {
			// A zero part did not happen in this event.
			if i < len(st.parts) && d > 0 {
				measure.Record(st.parts[i], d)
			}
		}
		st.txns++
		st.overhang += overhang
		st.events++
		st.busy += lat
	}
	st.c.Reads += c.Reads
	st.c.Writes += c.Writes
	st.c.Others += c.Others
	if t.errs|t.reconn != 0 { // every other count comes with one of these
		st.tally.add(*t)
	}
	st.mu.Unlock()
}

// pause sleeps for d (keying and think time) in steps, so a stop is not
// kept waiting.
func (r *run) pause(d time.Duration) {
	for end := time.Now().Add(d); !r.stop.Load(); {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, 100*time.Millisecond))
	}
}

type intervalStats struct {
	hist                       *hdrhistogram.Histogram
	txns, reads, writes, other int64
	// overhang is the share of the transactions that ran after a
	// run in turns had its gate closed.
	overhang float64
	tally    tally
}

// collect merges and resets every worker's interval data. With out == nil
// the data is dropped (warmup).
func (r *run) collect(out *Outcome) intervalStats {
	iv := intervalStats{hist: measure.NewHistogram()}
	for _, s := range r.slots {
		st := &s.st
		st.mu.Lock()
		iv.hist.Merge(st.hist)
		st.hist.Reset()
		if out != nil && len(st.parts) > 0 {
			if out.Parts == nil {
				out.Parts = map[string]*hdrhistogram.Histogram{}
			}
			for i, h := range st.parts {
				name := r.partNames[i]
				if out.Parts[name] == nil {
					out.Parts[name] = measure.NewHistogram()
				}
				out.Parts[name].Merge(h)
			}
		}
		for _, h := range st.parts {
			h.Reset()
		}
		iv.txns += st.txns
		iv.overhang += st.overhang
		iv.reads += st.c.Reads
		iv.writes += st.c.Writes
		iv.other += st.c.Others
		iv.tally.add(st.tally)
		st.txns, st.overhang, st.tally = 0, 0, tally{}
		st.c = workload.Counters{}
		st.mu.Unlock()
	}
	if out != nil {
		out.Hist.Merge(iv.hist)
		out.Txns += iv.txns
		out.Reads += iv.reads
		out.Writes += iv.writes
		out.Others += iv.other
		t := iv.tally
		out.Errors += t.errs
		out.Reconnects += t.reconn
		out.Retried += t.retried
		out.Retries += t.retries
		for k, n := range t.kinds {
			if n > 0 {
				if out.Failed == nil {
					out.Failed = map[string]int64{}
				}
				out.Failed[engine.ErrorKind(k).String()] += n
			}
		}
	}
	return iv
}

func (r *run) interval(out *Outcome, iv intervalStats, at, span time.Duration) {
	secs := span.Seconds()
	if secs <= 0 {
		return
	}
	pct := r.cfg.Percentile
	if pct <= 0 {
		pct = 95
	}
	q := iv.reads + iv.writes + iv.other
	// A run in turns spans its gate's window: the work after it closed
	// is left out, and its queries in proportion.
	share := 1.0
	if iv.overhang > 0 && iv.txns > 0 {
		share = 1 - iv.overhang/float64(iv.txns)
	}
	rec := Interval{
		At: at, TPS: (float64(iv.txns) - iv.overhang) / secs, QPS: share * float64(q) / secs,
		Reads: share * float64(iv.reads) / secs, Writes: share * float64(iv.writes) / secs, Others: share * float64(iv.other) / secs,
		Pct: measure.Ms(iv.hist.ValueAtQuantile(pct)), Errors: float64(iv.tally.errs) / secs, Reconn: float64(iv.tally.reconn) / secs,
		Failed: float64(iv.tally.failed) / secs, Retries: float64(iv.tally.retries) / secs,
		Queue: int(r.queue.Load()),
	}
	out.Intervals = append(out.Intervals, rec)
	if r.cfg.OnInterval != nil {
		r.cfg.OnInterval(rec)
	}
	if r.cfg.ReportInterval > 0 && r.cfg.Out != nil {
		line := fmt.Sprintf("[ %.0fs ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,%g%%): %.2f err/s: %.2f reconn/s: %.2f",
			at.Seconds(), r.cfg.Threads, rec.TPS, rec.QPS, rec.Reads, rec.Writes, rec.Others, pct, rec.Pct, rec.Errors, rec.Reconn)
		// pgbench's failed and retried counts, after sysbench's fields.
		line += fmt.Sprintf(" fail/s: %.2f", rec.Failed)
		if r.cfg.MaxTries != 1 {
			line += fmt.Sprintf(" retry/s: %.2f", rec.Retries)
		}
		if r.cfg.Rate > 0 {
			line += fmt.Sprintf(" queue length: %d", rec.Queue)
		}
		fmt.Fprintln(r.cfg.Out, line)
	}
}

// serverProcs lists the server's processes, sorted; nil if unreadable.
func serverProcs(pid int) []int {
	pids, err := measure.Tree(pid)
	if err != nil {
		return nil
	}
	slices.Sort(pids)
	return pids
}
