package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/encbench/encbench/internal/measure"
)

// gate lets a controller run workers in slices. Open, workers start
// events; closed, none starts one, and closing waits for the events in
// flight to finish and be recorded. A worker pays two atomic adds and a
// few loads per event.
type gate struct {
	open     atomic.Bool
	inflight atomic.Int64
	// wake is closed when the gate opens; a closed gate has a new one.
	wake    atomic.Pointer[chan struct{}]
	drained chan struct{}
	// base is the gate's clock origin; closedAt is when the gate last
	// closed, in nanoseconds after base (0 while open).
	base     time.Time
	closedAt atomic.Int64
}

func newGate() *gate {
	g := &gate{drained: make(chan struct{}, 1), base: time.Now()}
	ch := make(chan struct{})
	g.wake.Store(&ch)
	return g
}

// enter waits until the gate is open and counts the worker in flight; it
// returns false once the run stops (and when it lost a race with a
// closing gate: the caller asks again).
func (g *gate) enter(stop *atomic.Bool) bool {
	for !stop.Load() {
		if g.open.Load() {
			g.inflight.Add(1)
			// The controller stores open before it reads inflight, and
			// the worker the other way round: one of them sees the other.
			if g.open.Load() {
				return true
			}
			g.leave()
			return false
		}
		ch := g.wake.Load()
		if g.open.Load() {
			continue
		}
		<-*ch
	}
	return false
}

// leave ends an event; the last one out of a closing gate says so. A nil
// gate (a run not in turns) does nothing.
func (g *gate) leave() {
	if g == nil {
		return
	}
	if g.inflight.Add(-1) == 0 && !g.open.Load() {
		select {
		case g.drained <- struct{}{}:
		default:
		}
	}
}

// overhang is the share of an event that ended at end after lat that
// fell after the gate closed: 0 for an event done while it was open. A
// worker asks before it leaves, so the gate cannot have opened again.
func (g *gate) overhang(end time.Time, lat time.Duration) float64 {
	if g == nil || lat <= 0 {
		return 0
	}
	closed := g.closedAt.Load()
	if closed == 0 {
		return 0
	}
	after := end.Sub(g.base) - time.Duration(closed)
	if after <= 0 {
		return 0
	}
	return min(1, float64(after)/float64(lat))
}

func (g *gate) openUp() {
	g.closedAt.Store(0)
	g.open.Store(true)
	close(*g.wake.Load())
}

// shut closes the gate and waits up to bound for the events in flight;
// it returns when the gate closed.
func (g *gate) shut(bound time.Duration) (time.Time, error) {
	ch := make(chan struct{})
	g.wake.Store(&ch)
	closed := time.Now()
	g.closedAt.Store(max(1, int64(closed.Sub(g.base))))
	g.open.Store(false)
	var timer *time.Timer
	for g.inflight.Load() > 0 {
		if timer == nil {
			timer = time.NewTimer(bound)
			defer timer.Stop()
		}
		select {
		case <-g.drained:
		case <-timer.C:
			return closed, fmt.Errorf("%d workers were still waiting for the server %v after their turn ended (--reconnect-timeout): the server stopped answering", g.inflight.Load(), bound)
		}
	}
	// A token left by a worker that lost the race to enter.
	select {
	case <-g.drained:
	default:
	}
	return closed, nil
}

// Turns is a session whose workers run only in the turns a controller
// gives them, so several variants' runs can take turns on one machine a
// fraction of a second at a time: slow drift of the machine then falls
// on every variant alike. It measures only inside its turns: from the
// gate's opening until the last event in flight was recorded.
type Turns struct {
	r           *run
	g           *gate
	workersDone <-chan struct{}
	acc         *Outcome
	// cpu reads the server's process tree as found when the turns start
	// (its connections' processes exist by then).
	cpu *resourceMeter
}

// Turn is what one turn measured. Elapsed runs until the last event in
// flight was recorded; Window only while the gate was open, and Work is
// the transactions done in it: an event in flight when the gate closed
// counts for the share of its time before the close. Work / Window is
// then free of the drain, in which fewer workers run than in the turn,
// and which is longer for a slower variant.
type Turn struct {
	Elapsed   time.Duration
	Window    time.Duration
	Work      float64
	Txns      int64
	ClientCPU time.Duration
	// ServerCPU is -1 when the server's CPU could not be read.
	ServerCPU time.Duration
}

// StartTurns starts the session's workers behind a closed gate. Time,
// warmup, events and rate do not apply: the controller decides how long
// the workers run.
func (s *Session) StartTurns() *Turns {
	r := s.newRun()
	r.gate = newGate()
	r.measuring.Store(true)
	x := &Turns{r: r, g: r.gate, acc: &Outcome{Hist: measure.NewHistogram()}, cpu: newResourceMeter(r.cfg.ServerPID, r.cfg.MemberPIDs, true, r.traffic, r.cfg.LockWaits)}
	x.workersDone = r.startWorkers()
	return x
}

// Turn opens the gate for d, closes it, waits for the events in flight
// and adds what happened to the current take. A failed worker ends the
// run: its error comes back.
func (x *Turns) Turn(ctx context.Context, d time.Duration) (Turn, error) {
	cfg := x.r.cfg
	mark := x.cpu.start()
	start := time.Now()
	x.g.openUp()
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	case <-x.workersDone:
		t.Stop()
	}
	closed, shutErr := x.g.shut(cfg.ReconnectTimeout)
	end := time.Now()
	sl := Turn{Elapsed: end.Sub(start), Window: closed.Sub(start)}
	sl.ClientCPU, sl.ServerCPU = x.cpu.stop(mark)
	iv := x.r.collect(x.acc)
	sl.Txns = iv.txns
	sl.Work = float64(iv.txns) - iv.overhang
	o := x.acc
	x.r.interval(o, iv, o.Elapsed+sl.Elapsed, sl.Window)
	o.Elapsed += sl.Elapsed
	o.Window += sl.Window
	o.Work += sl.Work
	o.ClientCPU += sl.ClientCPU
	if sl.ServerCPU >= 0 {
		s := sl.ServerCPU
		if o.ServerCPU != nil {
			s += *o.ServerCPU
		}
		o.ServerCPU = &s
	}
	if ctx.Err() != nil {
		o.Partial = true
		return sl, ctx.Err()
	}
	if p := x.r.failure.Load(); p != nil {
		return sl, *p
	}
	return sl, shutErr
}

// Take returns everything measured since the last Take (or the start) and
// starts a new one: a controller takes once per block, and once after
// warm-up turns to drop them.
func (x *Turns) Take() *Outcome {
	o := x.acc
	x.cpu.fill(o)
	x.r.harvest(o, true)
	x.acc = &Outcome{Hist: measure.NewHistogram()}
	return o
}

// Stop ends the workers (the gate opens for them to see the stop) and
// waits for them, at most --reconnect-timeout.
func (x *Turns) Stop() error {
	x.r.stop.Store(true)
	if !x.g.open.Load() {
		x.g.openUp()
	}
	select {
	case <-x.workersDone:
	case <-time.After(x.r.cfg.ReconnectTimeout):
		return fmt.Errorf("workers were still waiting for the server %v after the run's end (--reconnect-timeout): the server stopped answering", x.r.cfg.ReconnectTimeout)
	}
	if p := x.r.failure.Load(); p != nil {
		return *p
	}
	return nil
}
