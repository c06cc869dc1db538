package runner

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/workload"
)

// fakeEngine hands out in-memory connections and counts them; no database
// is involved: these tests are about the runner's own rules.
type fakeEngine struct {
	opened, closed atomic.Int64
	failConnect    atomic.Bool
	hangConnect    atomic.Bool
}

var errLost = errors.New("connection lost")

func (e *fakeEngine) Kind() string                               { return "fake" }
func (e *fakeEngine) Schemes() []string                          { return []string{"fake"} }
func (e *fakeEngine) Dialect() engine.Dialect                    { return engine.Dialect{Name: "fake"} }
func (e *fakeEngine) Validate(*url.URL, engine.TLSOptions) error { return nil }
func (e *fakeEngine) ServerInfo(context.Context, engine.Conn) (engine.ServerInfo, error) {
	return engine.ServerInfo{Version: "fake 1"}, nil
}
func (e *fakeEngine) ClassifyError(err error) engine.ServerError {
	var se *fakeServerError
	if errors.As(err, &se) {
		return engine.ServerError{Kind: se.kind, Code: se.code}
	}
	if errors.Is(err, errLost) {
		return engine.ServerError{Kind: engine.ErrConnLost}
	}
	return engine.ServerError{Kind: engine.ErrFatal}
}
func (e *fakeEngine) DefaultIgnoredErrors() []string { return nil }

// fakeServerError is an error a server reported, with its code.
type fakeServerError struct {
	kind engine.ErrorKind
	code string
}

func (e *fakeServerError) Error() string { return "server error " + e.code }
func (e *fakeEngine) Connect(ctx context.Context, _ engine.Target) (engine.Conn, error) {
	if e.failConnect.Load() {
		return nil, errors.New("refused")
	}
	if e.hangConnect.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	e.opened.Add(1)
	return &fakeConn{e: e}, nil
}

type fakeConn struct {
	e      *fakeEngine
	closed atomic.Bool
}

func (c *fakeConn) Exec(context.Context, string) error                   { return nil }
func (c *fakeConn) Query(context.Context, string) ([][]string, error)    { return nil, nil }
func (c *fakeConn) Prepare(context.Context, string) (engine.Stmt, error) { return nil, nil }
func (c *fakeConn) TLSState(context.Context) (engine.SessionTLS, error) {
	return engine.SessionTLS{}, nil
}
func (c *fakeConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.e.closed.Add(1)
	}
	return nil
}

// fakeWorkload's events sleep for eventTime and time two parts.
type fakeWorkload struct {
	eventTime time.Duration
	events    atomic.Int64 // every event, warmup included
	loseEvery int64        // every n-th event loses its connection
	// Every failEvery-th transaction fails its first failTries tries with
	// failWith; inputs numbers the transactions drawn.
	failEvery int64
	failTries int
	failWith  error
	inputs    atomic.Int64
	// onLost, when set, runs when a connection is lost (before reconnecting).
	onLost func()
	// hang makes events block until it is closed.
	hang chan struct{}
	// watchPolicy counts events by their thread's scheduling policy.
	watchPolicy bool
	batch       atomic.Int64
	notBatch    atomic.Int64
	// procs is the most Ps an event saw (runtime.GOMAXPROCS).
	procs atomic.Int64
	// unmarked, with watchPolicy, is the most threads of the process an
	// event saw that were not SCHED_BATCH.
	unmarked atomic.Int64
	mu       sync.Mutex
	workers  []*fakeWorker
	// setUp, when set, is each worker's set-up: its error fails NewWorker.
	setUp func(ctx context.Context, id int) error
}

func (w *fakeWorkload) Name() string { return "fake" }
func (w *fakeWorkload) Capabilities() workload.Capabilities {
	return workload.Capabilities{Parts: []workload.Part{{Name: "first", Label: "first half"}, {Name: "second", Label: "second half"}}}
}
func (w *fakeWorkload) Tables() []string                            { return nil }
func (w *fakeWorkload) Params() map[string]any                      { return nil }
func (w *fakeWorkload) Schema() string                              { return "" }
func (w *fakeWorkload) Validate(int) error                          { return nil }
func (w *fakeWorkload) Prepare(context.Context, workload.Env) error { return nil }
func (w *fakeWorkload) Cleanup(context.Context, workload.Env) error { return nil }
func (w *fakeWorkload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	if w.setUp != nil {
		if err := w.setUp(ctx, env.ID); err != nil {
			return nil, err
		}
	}
	k := &fakeWorker{w: w, conn: env.Conn, prev: env.Previous}
	w.mu.Lock()
	w.workers = append(w.workers, k)
	w.mu.Unlock()
	return k, nil
}

type fakeWorker struct {
	w      *fakeWorkload
	conn   engine.Conn
	prev   workload.Worker
	closed int
	items  [2]time.Duration
	// input is the transaction being tried, tries its tries so far;
	// tried records the input of every try, in order.
	input  int64
	tries  int
	replay bool
	tried  []int64
	// notes counts the worker's committed events, as workload.Noter.
	notes map[string]int64
}

func (k *fakeWorker) Notes() map[string]int64 { return k.notes }

func (k *fakeWorker) Event(c *workload.Counters) error {
	n := k.w.events.Add(1)
	if !k.replay {
		k.input, k.tries = k.w.inputs.Add(1), 0
	}
	k.replay = false
	k.tries++
	k.tried = append(k.tried, k.input)
	if p := int64(runtime.GOMAXPROCS(0)); p > k.w.procs.Load() {
		k.w.procs.Store(p) // racy max: runs under test see one value throughout
	}
	if k.w.watchPolicy {
		if n := int64(unmarkedThreads()); n > k.w.unmarked.Load() {
			k.w.unmarked.Store(n)
		}
		if attr, err := unix.SchedGetAttr(0, 0); err == nil && attr.Policy == unix.SCHED_BATCH {
			k.w.batch.Add(1)
		} else {
			k.w.notBatch.Add(1)
		}
	}
	if k.w.hang != nil {
		<-k.w.hang
	}
	if k.w.loseEvery > 0 && n%k.w.loseEvery == 0 {
		if k.w.onLost != nil {
			k.w.onLost()
		}
		return errLost
	}
	if k.w.failEvery > 0 && k.input%k.w.failEvery == 0 && k.tries <= k.w.failTries {
		return k.w.failWith
	}
	if k.w.eventTime > 0 {
		time.Sleep(k.w.eventTime)
	}
	c.Reads++
	if k.notes == nil {
		k.notes = map[string]int64{}
	}
	k.notes["committed"]++
	k.items = [2]time.Duration{time.Microsecond, 2 * time.Microsecond}
	c.Parts = k.items[:]
	return nil
}
func (k *fakeWorker) Abort(retry bool) error { k.replay = retry; return nil }
func (k *fakeWorker) Close() error           { k.closed++; return nil }

func target(e *fakeEngine) engine.Target { return engine.Target{Engine: e} }

func TestEventLimitIsExact(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 4, Settings: runset.Settings{Events: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, n := range out.WorkerEvents {
		sum += n
	}
	if out.Txns != 1000 || sum != 1000 || out.Reads != 1000 || out.Hist.TotalCount() != 1000 {
		t.Errorf("1000 events: txns %d, per worker %d, reads %d, histogram %d", out.Txns, sum, out.Reads, out.Hist.TotalCount())
	}
	if out.Parts["first"].TotalCount() != 1000 || out.Parts["second"].TotalCount() != 1000 {
		t.Errorf("declared parts were not timed: %v", out.Parts)
	}
}

func TestTimeLimitEndsTheRun(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: time.Millisecond}
	start := time.Now()
	out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Time: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Elapsed < 300*time.Millisecond || time.Since(start) > 3*time.Second {
		t.Errorf("a 300 ms run measured %v and took %v", out.Elapsed, time.Since(start))
	}
	if out.Txns == 0 || out.Partial {
		t.Errorf("txns %d partial %v", out.Txns, out.Partial)
	}
}

// Warmup events are run and dropped; they do not count against --events.
func TestWarmupDoesNotConsumeEvents(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: 200 * time.Microsecond}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 300, Warmup: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Txns != 300 {
		t.Errorf("measured %d events, want the 300 of --events", out.Txns)
	}
	if w.events.Load() <= 300 {
		t.Errorf("only %d events ran in all: the warmup ran none", w.events.Load())
	}
}

// In rate mode events start on a Poisson schedule, and a server slower
// than the schedule shows as latency from each event's intended start.
func TestRateScheduleAndNoCoordinatedOmission(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: 20 * time.Millisecond}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 1, Settings: runset.Settings{Time: time.Second, Rate: 200}})
	if err != nil {
		t.Fatal(err)
	}
	// One worker at 20 ms per event serves at most 50 of the 200 per second.
	if out.Txns > 60 {
		t.Errorf("%d events in 1 s from a worker that takes 20 ms each", out.Txns)
	}
	if p99 := time.Duration(out.Hist.ValueAtQuantile(99)) * time.Microsecond; p99 < 200*time.Millisecond {
		t.Errorf("p99 %v: latency does not count the queueing behind the schedule", p99)
	}
	e2, fast := &fakeEngine{}, &fakeWorkload{}
	out, err = Run(context.Background(), target(e2), fast, Config{Threads: 2, Settings: runset.Settings{Time: time.Second, Rate: 300}})
	if err != nil {
		t.Fatal(err)
	}
	// 300 arrivals expected: a Poisson count's 5-sigma band is about +-87.
	if out.Txns < 200 || out.Txns > 400 {
		t.Errorf("rate 300/s for 1 s gave %d events", out.Txns)
	}
}

var intervalLine = regexp.MustCompile(`^\[ \d+s \] thds: 2 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/0\.00/0\.00\) lat \(ms,95%\): [0-9.]+ err/s: 0\.00 reconn/s: 0\.00 fail/s: 0\.00$`)

func TestIntervalLines(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: 100 * time.Microsecond}
	var buf bytes.Buffer
	var seen atomic.Int64
	out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Out: &buf, OnInterval: func(Interval) { seen.Add(1) },
		Settings: runset.Settings{Time: 2 * time.Second, ReportInterval: time.Second, MaxTries: 1, Percentile: 95}})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) < 2 || len(out.Intervals) < 2 || seen.Load() != int64(len(out.Intervals)) {
		t.Fatalf("%d lines, %d intervals, %d seen:\n%s", len(lines), len(out.Intervals), seen.Load(), buf.String())
	}
	for _, l := range lines {
		if !intervalLine.Match(l) {
			t.Errorf("interval line %q is not sysbench's layout", l)
		}
	}
	if out.Intervals[0].At.Round(100*time.Millisecond) != time.Second || out.Intervals[1].At.Round(100*time.Millisecond) != 2*time.Second {
		t.Errorf("interval times %v, %v", out.Intervals[0].At, out.Intervals[1].At)
	}
}

// Every worker is closed once and every connection it used is closed,
// including those replaced after a lost connection.
func TestWorkersAndConnectionsAreClosed(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{loseEvery: 50}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 3, Settings: runset.Settings{Events: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reconnects == 0 || out.Errors == 0 {
		t.Errorf("lost connections: %d reconnects, %d errors", out.Reconnects, out.Errors)
	}
	// The notes of workers replaced after a lost connection count too.
	if out.Notes["committed"] != out.Txns {
		t.Errorf("notes count %d committed events, the run %d", out.Notes["committed"], out.Txns)
	}
	if e.opened.Load() != e.closed.Load() {
		t.Errorf("%d connections opened, %d closed", e.opened.Load(), e.closed.Load())
	}
	// Workers replaced after a lost connection are not closed by the
	// runner (their connection was gone); the last of each slot is.
	closed := 0
	for _, k := range w.workers {
		closed += k.closed
		if k.closed > 1 {
			t.Errorf("a worker was closed %d times", k.closed)
		}
	}
	if closed < 3 {
		t.Errorf("%d workers closed, want at least one per thread", closed)
	}
}

func TestFailedSessionCheckStopsBeforeMeasuring(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{}
	_, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 100},
		CheckSessions: func([]engine.SessionTLS) error { return errors.New("not proven") }})
	if err == nil || w.events.Load() != 0 {
		t.Errorf("err %v, %d events ran", err, w.events.Load())
	}
	if e.opened.Load() != e.closed.Load() {
		t.Errorf("%d connections opened, %d closed", e.opened.Load(), e.closed.Load())
	}
}

func TestCancelledRunIsPartial(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, err := Run(ctx, target(e), w, Config{Threads: 2, Settings: runset.Settings{Time: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Partial || out.Elapsed > 5*time.Second {
		t.Errorf("partial %v after %v", out.Partial, out.Elapsed)
	}
}

func TestConnectFailureIsReported(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{}
	e.failConnect.Store(true)
	if _, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 10}}); err == nil {
		t.Error("a run whose connections were refused succeeded")
	}
}

// Interrupted before its measured window, a run returns no outcome, only
// the error saying nothing was measured.
func TestInterruptedWarmupMeasuresNothing(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, err := Run(ctx, target(e), w, Config{Threads: 2, Settings: runset.Settings{Warmup: time.Minute, Time: time.Minute}})
	if !errors.Is(err, ErrWarmupInterrupted) || out != nil && out.Hist != nil {
		t.Fatalf("outcome %v, err %v", out, err)
	}
	if e.opened.Load() != e.closed.Load() {
		t.Errorf("%d connections opened, %d closed", e.opened.Load(), e.closed.Load())
	}
}

// A worker whose set-up statement the first failure cut short sees only
// its socket shut and may word that as a usage error; the run still
// reports the failure that stopped it (CI saw exit 2, "no sbtest_enc
// table of this version (... unexpected EOF)", for a counter set back).
func TestFailureThatStoppedTheOthersIsReported(t *testing.T) {
	setBack := errors.New("the server's counter was set back")
	w := &fakeWorkload{setUp: func(ctx context.Context, id int) error {
		if id == 0 {
			return setBack
		}
		<-ctx.Done()
		return errs.Usage("no table of this version: prepare first (reading from the server: unexpected EOF)")
	}}
	_, err := Open(context.Background(), target(&fakeEngine{}), w, Config{Threads: 4, Settings: runset.Settings{Events: 10}})
	if !errors.Is(err, setBack) || errs.ExitCode(err) != 1 {
		t.Errorf("got %v (exit %d), want the counter's failure", err, errs.ExitCode(err))
	}
}

// unmarkedThreads counts the process's threads that are not SCHED_BATCH.
func unmarkedThreads() int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	n := 0
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if attr, err := unix.SchedGetAttr(tid, 0); err == nil && attr.Policy != unix.SCHED_BATCH {
			n++
		}
	}
	return n
}
