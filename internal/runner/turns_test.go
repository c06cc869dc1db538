package runner

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/runset"
)

// Two sessions take turns: while one's gate is closed its workers start
// nothing, every event lands in the turn that ran it, and the takes add
// up to the slices.
func TestRunInTurnsRunsOnlyInItsTurns(t *testing.T) {
	ctx := context.Background()
	ea, wa := &fakeEngine{}, &fakeWorkload{eventTime: 200 * time.Microsecond}
	eb, wb := &fakeEngine{}, &fakeWorkload{eventTime: 200 * time.Microsecond}
	sa, err := Open(ctx, target(ea), wa, Config{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close()
	sb, err := Open(ctx, target(eb), wb, Config{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	a, b := sa.StartTurns(), sb.StartTurns()
	var turnTxns [2]int64
	for round := range 4 {
		for i, x := range []*Turns{a, b} {
			other := []*fakeWorkload{wb, wa}[i]
			before := other.events.Load()
			sl, err := x.Turn(ctx, 30*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if got := other.events.Load(); got != before {
				t.Errorf("round %d: %d events of the closed session ran during the other's turn", round, got-before)
			}
			if sl.Txns == 0 || sl.Elapsed < 30*time.Millisecond {
				t.Errorf("round %d: turn measured %d txns in %v", round, sl.Txns, sl.Elapsed)
			}
			turnTxns[i] += sl.Txns
		}
	}
	// Closed gates: nothing runs between slices.
	na, nb := wa.events.Load(), wb.events.Load()
	time.Sleep(20 * time.Millisecond)
	if wa.events.Load() != na || wb.events.Load() != nb {
		t.Error("workers ran events with every gate closed")
	}
	for i, x := range []*Turns{a, b} {
		o := x.Take()
		if o.Txns != turnTxns[i] || o.Hist.TotalCount() != o.Txns || len(o.Intervals) != 4 {
			t.Errorf("take %d: txns %d, turns %d, histogram %d, intervals %d", i, o.Txns, turnTxns[i], o.Hist.TotalCount(), len(o.Intervals))
		}
		if o.Elapsed < 4*30*time.Millisecond || o.Elapsed > 4*200*time.Millisecond {
			t.Errorf("take %d: elapsed %v for four 30 ms turns", i, o.Elapsed)
		}
		var sum int64
		for _, n := range o.WorkerEvents {
			sum += n
		}
		if sum != o.Txns {
			t.Errorf("take %d: workers' events %d, txns %d", i, sum, o.Txns)
		}
		if again := x.Take(); again.Txns != 0 || again.Elapsed != 0 {
			t.Errorf("a second take without turns measured %d txns in %v", again.Txns, again.Elapsed)
		}
		if err := x.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	if wa.events.Load() != na || wb.events.Load() != nb {
		t.Error("stopping ran events")
	}
}

// A turn whose events do not finish within the bound fails, naming it.
func TestTurnOfAStuckServerFails(t *testing.T) {
	ctx := context.Background()
	e, w := &fakeEngine{}, &fakeWorkload{hang: make(chan struct{})}
	s, err := Open(ctx, target(e), w, Config{Threads: 2, Settings: runset.Settings{ReconnectTimeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	x := s.StartTurns()
	start := time.Now()
	if _, err := x.Turn(ctx, 10*time.Millisecond); err == nil {
		t.Fatal("a turn whose events never end did not fail")
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("the stuck turn took %v", time.Since(start))
	}
	close(w.hang)
	if err := x.Stop(); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// An event in flight when the gate closes counts for its share inside
// the turn: four workers with 45 ms events in a 50 ms turn each finish
// one event inside and a ninth of the next, and the drain after the
// close is not part of the window.
func TestTurnCountsWorkInsideTheWindow(t *testing.T) {
	ctx := context.Background()
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: 45 * time.Millisecond}
	s, err := Open(ctx, target(e), w, Config{Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := s.StartTurns()
	sl, err := x.Turn(ctx, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Each worker starts an event in the window and, if it ended inside
	// it, a second one (8 on an idle machine; a busy one starts workers
	// late, and the first events then end after the gate closed). The
	// turn lasts until the last event that started in the window ends: a
	// second event ends at least 90 ms after the turn began.
	if sl.Txns < 4 || sl.Txns > 8 || sl.Window < 50*time.Millisecond || sl.Elapsed < sl.Window ||
		(sl.Txns > 4 && sl.Elapsed < 90*time.Millisecond) {
		t.Fatalf("turn: %d txns, window %v, elapsed %v; want 4 to 8 txns, a 50 ms window, and the drain's end", sl.Txns, sl.Window, sl.Elapsed)
	}
	// Work counts each event's share inside the window: at most the
	// window's 45 ms events back to back on each of 4 workers (4.44 for a
	// 50 ms window), more only as a late timer widens the window.
	most := 4 * float64(sl.Window) / float64(45*time.Millisecond)
	if sl.Work <= 0 || sl.Work > most+0.01 || sl.Work > float64(sl.Txns) {
		t.Errorf("work %.2f transactions inside a %v window of %d, want above 0 and at most %.2f", sl.Work, sl.Window, sl.Txns, most)
	}
	o := x.Take()
	if o.Window != sl.Window || o.Work != sl.Work || o.Txns != sl.Txns || len(o.Intervals) != 1 {
		t.Fatalf("take: window %v, work %.2f, txns %d, %d intervals", o.Window, o.Work, o.Txns, len(o.Intervals))
	}
	if want := sl.Work / sl.Window.Seconds(); math.Abs(o.Intervals[0].TPS-want) > 1e-9 {
		t.Errorf("interval TPS %.2f, want work over window %.2f", o.Intervals[0].TPS, want)
	}
	if err := x.Stop(); err != nil {
		t.Fatal(err)
	}
}

// Each take has the notes of its own turns (the TLS handshakes of a
// connect block), not the workers' running totals, and keeps those of
// workers replaced after a lost connection.
func TestTakesHaveTheirOwnNotes(t *testing.T) {
	ctx := context.Background()
	e, w := &fakeEngine{}, &fakeWorkload{eventTime: 100 * time.Microsecond, loseEvery: 40}
	s, err := Open(ctx, target(e), w, Config{Threads: 3, Settings: runset.Settings{ReconnectTimeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := s.StartTurns()
	var reconnects int64
	for take := range 3 {
		for range take + 1 {
			if _, err := x.Turn(ctx, 20*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		o := x.Take()
		if o.Txns == 0 || o.Notes["committed"] != o.Txns {
			t.Errorf("take %d: notes count %d committed events, the take %d", take, o.Notes["committed"], o.Txns)
		}
		reconnects += o.Reconnects
	}
	if reconnects == 0 {
		t.Error("no worker lost its connection, so replaced workers' notes were not tested")
	}
	if err := x.Stop(); err != nil {
		t.Fatal(err)
	}
}
