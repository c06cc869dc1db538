package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// tally is one event's (and, summed, one interval's) error counts.
type tally struct {
	errs, reconn, failed, retried, retries int64
	// kinds are failed transactions by engine.ErrorKind.
	kinds [engine.ErrConnLost + 1]int64
}

func (t *tally) add(o tally) {
	t.errs += o.errs
	t.reconn += o.reconn
	t.failed += o.failed
	t.retried += o.retried
	t.retries += o.retries
	for i, n := range o.kinds {
		t.kinds[i] += n
	}
}

// DefaultReconnectTimeout is --reconnect-timeout's default (defined with
// the engine's other bounds on waiting for a server).
const DefaultReconnectTimeout = engine.DefaultReconnectTimeout

// connectError names the bound when a connection was not ready in time.
func connectError(ctx context.Context, err error, bound time.Duration) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the server did not accept a connection and answer its first statements within %v (--reconnect-timeout): it stopped answering or is overloaded: %w", bound, err)
	}
	return err
}

// event runs one transaction under the error policy: a serialization
// failure or deadlock is tried again with the same input while
// --max-tries allows, an error --ignore-errors names fails the transaction
// and the worker goes on, a lost connection fails it and is replaced (the
// cut transaction is not repeated: its commit may have happened), and any
// other error stops the run. committed says the transaction succeeded.
func (r *run) event(id int, s *slot, c *workload.Counters, t *tally) (committed bool, err error) {
	for tries := 1; ; tries++ {
		err = s.worker.Event(c)
		if err == nil {
			if tries > 1 {
				t.retried++
			}
			return true, nil
		}
		e := r.t.Engine.ClassifyError(err)
		t.errs++
		s.codes[errorKey(e)]++
		retry := e.Kind.Retryable() && (r.cfg.MaxTries == 0 || tries < r.cfg.MaxTries) && !r.stop.Load()
		switch {
		case e.Kind == engine.ErrConnLost:
		case retry, r.cfg.Ignore.Ignores(e), e.Kind.Retryable() && r.stop.Load():
			// A conflict met as the run stops is a failure, not a reason
			// to stop the run.
			if aerr := s.worker.Abort(retry); aerr != nil {
				if r.t.Engine.ClassifyError(aerr).Kind != engine.ErrConnLost {
					return false, fmt.Errorf("worker %d: rolling back after %s: %w", id, e.Describe(err), aerr)
				}
				err = aerr // the rollback found the connection gone
				break
			}
			if retry {
				t.retries++
				continue
			}
			if tries > 1 {
				t.retried++
			}
			t.failed++
			t.kinds[e.Kind]++
			return false, nil
		default:
			return false, fmt.Errorf("worker %d: %s: not in --ignore-errors (%s), so the run stops", id, e.Describe(err), r.cfg.Ignore)
		}
		// The connection is gone.
		if tries > 1 {
			t.retried++
		}
		t.failed++
		t.kinds[engine.ErrConnLost]++
		if r.stop.Load() {
			return false, nil
		}
		if r.cfg.MaxReconnects > 0 && s.reconnects >= r.cfg.MaxReconnects {
			return false, fmt.Errorf("worker %d lost its connection %s into the run (%v) after %d reconnects, the most --max-reconnects allows", id, r.since(), err, s.reconnects)
		}
		if rerr := r.reconnect(id, s, err); rerr != nil {
			return false, rerr
		}
		s.reconnects++
		t.reconn++
		return false, nil
	}
}

// errorKey names an error in the per-code counts.
func errorKey(e engine.ServerError) string {
	if e.Code != "" {
		return e.Code
	}
	return e.Kind.String()
}

// since is how far into the run we are, for messages.
func (r *run) since() time.Duration { return time.Since(r.begin).Round(100 * time.Millisecond) }

// replaceConn swaps the worker's connection for a new one, preparing the
// workload's statements on it (reconnect per transaction).
func (r *run) replaceConn(id int, s *slot) error {
	_ = s.worker.Close()
	_ = s.conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.ReconnectTimeout)
	defer cancel()
	c, err := r.t.Engine.Connect(ctx, r.t)
	if err != nil {
		return err
	}
	env := r.workerEnv(c, id)
	env.Previous = s.worker // the random sequence goes on, not over
	w, err := r.wl.NewWorker(ctx, env)
	if err != nil {
		c.Close()
		return err
	}
	s.retireNotes()
	s.conn, s.worker = c, w
	return nil
}

func (r *run) workerEnv(c engine.Conn, id int) workload.WorkerEnv {
	return workerEnv(r.cfg, r.t, c, id)
}

// workerEnv numbers worker i among every generator's workers, so random
// streams and partitions (TPC-C home warehouses) do not repeat.
func workerEnv(cfg Config, t engine.Target, c engine.Conn, i int) workload.WorkerEnv {
	threads := cfg.Threads
	if cfg.TotalThreads > 0 {
		threads = cfg.TotalThreads
	}
	return workload.WorkerEnv{Conn: c, Dialect: t.Engine.Dialect(), Target: t, ID: cfg.IDOffset + i, Threads: threads}
}

// reconnect replaces the worker's lost connection, trying with back-off
// until --reconnect-timeout has passed; the new worker carries on the old
// one's random sequence. Its error says what the worker saw.
func (r *run) reconnect(id int, s *slot, cause error) error {
	s.conn.Close()
	lostAt := r.since()
	bound := r.cfg.ReconnectTimeout
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	wait := 50 * time.Millisecond
	var lastErr error
	for attempt := 1; ; attempt++ {
		// One attempt may meet the server in its shutdown or start-up and
		// hang there: each gets a third of the bound, so later attempts,
		// which can meet the server up again, still fit in it.
		actx, acancel := context.WithTimeout(ctx, max(bound/3, time.Second))
		c, err := r.t.Engine.Connect(actx, r.t)
		acancel()
		if err == nil {
			env := r.workerEnv(c, id)
			env.Previous = s.worker
			w, werr := r.wl.NewWorker(ctx, env)
			if werr == nil {
				s.retireNotes()
				s.conn, s.worker = c, w
				return nil
			}
			c.Close()
			err = werr
		}
		lastErr = err
		if r.stop.Load() && r.failure.Load() != nil {
			return fmt.Errorf("worker %d lost its connection %s into the run (%v); the run stopped while it reconnected", id, lostAt, cause)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("worker %d lost its connection %s into the run (%v) and the server did not accept a new one within %v (--reconnect-timeout; %d attempts, last: %v)",
				id, lostAt, cause, bound, attempt, lastErr)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
