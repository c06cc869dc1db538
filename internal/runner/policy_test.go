package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/runset"
)

var (
	errConflict = &fakeServerError{kind: engine.ErrSerialization, code: "40001"}
	errDup      = &fakeServerError{kind: engine.ErrUniqueViolation, code: "1062"}
)

// triesOf returns, per transaction input, how often it was tried, and
// checks that a transaction's tries were consecutive on one worker.
func triesOf(t *testing.T, w *fakeWorkload) map[int64]int {
	t.Helper()
	n := map[int64]int{}
	for _, k := range w.workers {
		for i, in := range k.tried {
			if n[in] > 0 && k.tried[i-1] != in {
				t.Errorf("transaction %d was tried again after another one", in)
			}
			n[in]++
		}
	}
	return n
}

// pgbench's --max-tries: a serialization failure repeats the same
// transaction (same input) until it commits within the allowed tries.
func TestMaxTriesRepeatsTheSameTransaction(t *testing.T) {
	e := &fakeEngine{}
	w := &fakeWorkload{failEvery: 10, failTries: 2, failWith: errConflict}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 500, MaxTries: 3}})
	if err != nil {
		t.Fatal(err)
	}
	tries := triesOf(t, w)
	retried := 0
	for in, n := range tries {
		if in%10 == 0 {
			retried++
			if n != 3 {
				t.Errorf("transaction %d conflicting twice was tried %d times, want 3", in, n)
			}
		} else if n != 1 {
			t.Errorf("transaction %d was tried %d times", in, n)
		}
	}
	if out.Txns != 500 || len(out.Failed) != 0 || out.Retried != int64(retried) || out.Retries != 2*int64(retried) || out.Errors != 2*int64(retried) {
		t.Errorf("txns %d failed %v retried %d (want %d) retries %d errors %d", out.Txns, out.Failed, out.Retried, retried, out.Retries, out.Errors)
	}
	if out.ErrorCodes["40001"] != out.Errors {
		t.Errorf("error codes %v", out.ErrorCodes)
	}
}

// When the tries run out, an ignored error fails the transaction and the
// worker goes on with a new one; the failure is counted by kind.
func TestExhaustedTriesFailTheTransaction(t *testing.T) {
	e := &fakeEngine{}
	w := &fakeWorkload{failEvery: 10, failTries: 5, failWith: errConflict}
	ignore, _ := engine.ParseIgnoreSet("serialization")
	out, err := Run(context.Background(), target(e), w, Config{Threads: 1, Ignore: ignore, Settings: runset.Settings{Events: 200, MaxTries: 2}})
	if err != nil {
		t.Fatal(err)
	}
	tries := triesOf(t, w)
	for in, n := range tries {
		want := 1
		if in%10 == 0 {
			want = 2
		}
		if n != want {
			t.Errorf("transaction %d tried %d times, want %d", in, n, want)
		}
	}
	failed := int64(len(tries) / 10)
	if out.Failed["serialization"] != failed || out.Retried != failed || out.Retries != failed || out.Txns != 200 {
		t.Errorf("failed %v (want %d serialization), retried %d, retries %d, txns %d", out.Failed, failed, out.Retried, out.Retries, out.Txns)
	}
	if out.Hist.TotalCount() != out.Txns {
		t.Errorf("%d latencies recorded for %d committed transactions: failures must not count", out.Hist.TotalCount(), out.Txns)
	}
}

// sysbench's --mysql-ignore-errors: listed codes (or all) fail the
// transaction without stopping the run; anything else stops it, saying so.
func TestIgnoreErrorsByCodeAndAll(t *testing.T) {
	for _, tc := range []struct {
		ignore string
		stops  bool
	}{{"none", true}, {"40001,1213", true}, {"1062", false}, {"all", false}, {"unique_violation", false}} {
		e := &fakeEngine{}
		w := &fakeWorkload{failEvery: 7, failTries: 1, failWith: errDup}
		set, err := engine.ParseIgnoreSet(tc.ignore)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Ignore: set, Settings: runset.Settings{Events: 100, MaxTries: 10}})
		if tc.stops {
			if err == nil || !strings.Contains(err.Error(), "1062") || !strings.Contains(err.Error(), "--ignore-errors") {
				t.Errorf("--ignore-errors %s: a duplicate key gave %v, want the run stopped naming the code", tc.ignore, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("--ignore-errors %s: %v", tc.ignore, err)
		}
		// A unique violation is not a conflict: never retried.
		if out.Failed["unique_violation"] == 0 || out.Retries != 0 || out.Txns != 100 {
			t.Errorf("--ignore-errors %s: failed %v retries %d txns %d", tc.ignore, out.Failed, out.Retries, out.Txns)
		}
	}
	e, w := &fakeEngine{}, &fakeWorkload{failEvery: 3, failTries: 1, failWith: errLost}
	w.failWith = context.Canceled // not a server's error: never ignored
	if _, err := Run(context.Background(), target(e), w, Config{Threads: 1, Ignore: engine.IgnoreSet{All: true}, Settings: runset.Settings{Events: 10}}); err == nil {
		t.Error("--ignore-errors all let a client-side error pass")
	}
}

// A lost connection fails the transaction it cut (not repeated: its commit
// may have happened) and the worker reconnects, carrying on its sequence.
func TestLostConnectionFailsTheTransactionAndReconnects(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{loseEvery: 25}
	out, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 200, MaxTries: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reconnects == 0 || out.Failed["connection"] != out.Reconnects || out.Retries != 0 || out.Txns != 200 {
		t.Errorf("reconnects %d failed %v retries %d txns %d", out.Reconnects, out.Failed, out.Retries, out.Txns)
	}
	carried := 0
	for _, k := range w.workers {
		if k.prev != nil {
			carried++
		}
	}
	if carried != int(out.Reconnects) {
		t.Errorf("%d of %d replacement workers were given the worker they replace", carried, out.Reconnects)
	}
}

// A server that does not come back stops the run within
// --reconnect-timeout, and the error says what the worker saw.
func TestServerThatDoesNotComeBackStopsTheRun(t *testing.T) {
	e := &fakeEngine{}
	w := &fakeWorkload{loseEvery: 40}
	w.onLost = func() { e.failConnect.Store(true) }
	start := time.Now()
	_, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Time: time.Minute, ReconnectTimeout: 400 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "did not accept a new one within 400ms") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v to give up", d)
	}
	e.failConnect.Store(false)
	e.hangConnect.Store(true)
	w2 := &fakeWorkload{}
	start = time.Now()
	if _, err := Run(context.Background(), target(e), w2, Config{Threads: 2, Settings: runset.Settings{Events: 10, ReconnectTimeout: 300 * time.Millisecond}}); err == nil || !strings.Contains(err.Error(), "within 300ms") {
		t.Errorf("a server that never answers a connection: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("connecting took %v to give up", d)
	}
}

// Nothing hangs: workers blocked on a server that stopped answering
// release the run once the bound has passed after its end.
func TestStuckWorkersDoNotHoldTheRun(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{hang: make(chan struct{})}
	defer close(w.hang)
	start := time.Now()
	out, err := Run(context.Background(), target(e), w, Config{Threads: 3, Settings: runset.Settings{Time: 300 * time.Millisecond, ReconnectTimeout: 300 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "3 of 3 workers were still waiting") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the run took %v", d)
	}
	if out == nil || out.Txns != 0 {
		t.Errorf("outcome %+v", out)
	}
}

func TestParseIgnoreSet(t *testing.T) {
	s, err := engine.ParseIgnoreSet("40P01, deadlock,1213")
	if err != nil || !slices.Equal(s.Codes, []string{"40P01", "1213"}) || !s.Ignores(engine.ServerError{Kind: engine.ErrDeadlock, Code: "x"}) ||
		!s.Ignores(engine.ServerError{Kind: engine.ErrServer, Code: "40p01"}) || s.Ignores(engine.ServerError{Kind: engine.ErrServer, Code: "42P01"}) {
		t.Errorf("%+v %v", s, err)
	}
	if _, err := engine.ParseIgnoreSet("40P01;drop"); err == nil {
		t.Error("a malformed list was accepted")
	}
	all, _ := engine.ParseIgnoreSet("all")
	if all.Ignores(engine.ServerError{Kind: engine.ErrConnLost}) || all.Ignores(engine.ServerError{Kind: engine.ErrFatal}) || all.String() != "all" {
		t.Error("all covers server errors only")
	}
}

// --max-reconnects caps the lost connections one worker replaces.
func TestMaxReconnectsStopsTheRun(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{loseEvery: 5}
	_, err := Run(context.Background(), target(e), w, Config{Threads: 1, Settings: runset.Settings{Events: 100, MaxReconnects: 2}})
	if err == nil || !strings.Contains(err.Error(), "after 2 reconnects, the most --max-reconnects allows") {
		t.Errorf("a worker losing its connection every 5 events with --max-reconnects 2: %v", err)
	}
}

// With a connection per transaction, each new worker takes over its
// predecessor (its random sequence goes on rather than starting over).
func TestReconnectPerTxnHandsOverTheWorker(t *testing.T) {
	e, w := &fakeEngine{}, &fakeWorkload{}
	if _, err := Run(context.Background(), target(e), w, Config{Threads: 2, Settings: runset.Settings{Events: 20, ReconnectPerTxn: true}}); err != nil {
		t.Fatal(err)
	}
	fresh := 0
	for _, k := range w.workers {
		if k.prev == nil {
			fresh++
		}
	}
	if fresh != 2 || len(w.workers) < 20 {
		t.Errorf("%d workers, %d without a predecessor: want one per thread", len(w.workers), fresh)
	}
}

// A workload's refusal (a usage error) is reported over a connection that
// the first failure cut off in its handshake, whichever came first.
func TestRootCausePrefersTheUsageError(t *testing.T) {
	cut := errors.New("failed SASL auth: FATAL: expected SASL response, got message type 88")
	refused := errs.Usage("enc_range_sum_k compares k, which ashe cannot")
	if got := rootCause(cut, []error{cut, refused}); got != refused {
		t.Errorf("got %v", got)
	}
	if got := rootCause(cut, []error{cut, nil}); got != cut {
		t.Errorf("without a usage error: %v", got)
	}
}

// A worker whose set-up the first failure cancelled may word its error as
// a usage error ("no table of this version (context canceled ...)"): it
// never hides the failure that cancelled it.
func TestRootCauseIgnoresWhatTheCancellationCaused(t *testing.T) {
	setBack := errors.New("the server's ashe identifier counter (1) is below 1099511631872")
	cancelled := errs.Usage("no sbtest_enc table of this version (%w)", fmt.Errorf("%w: reading from the server: EOF", context.Canceled))
	if got := rootCause(setBack, []error{cancelled, setBack}); got != setBack {
		t.Errorf("got %v", got)
	}
	if got := rootCause(cancelled, []error{cancelled, setBack}); got != setBack {
		t.Errorf("cancelled first: got %v", got)
	}
}
