package orchestrator

import (
	"context"
	"sync"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/result"
)

// replicationEvery is how often the primary's view of its replicas is
// read while a run runs.
const replicationEvery = 200 * time.Millisecond

// replSampler reads the primary's view of its replicas, on a connection
// of its own, from Open until the result is assembled: the lag each
// replica fell to and how long the primary's WAL took to be flushed and
// applied there (a synchronous commit waits for the flush).
type replSampler struct {
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	// Written by the sampling goroutine only, read after done closes.
	sum     result.Replication
	flush   map[string]time.Duration
	replay  map[string]time.Duration
	lastPos int64
}

// startReplication starts the sampler when the engine reports replicas
// and the target has any; nil otherwise: a single server, or a server of
// the user's whose replication state the benchmark account cannot read,
// which the error says (the run goes on without the figures).
func startReplication(ctx context.Context, t engine.Target) (*replSampler, error) {
	states, w, err := ReplicationReadable(ctx, t)
	if err != nil || len(states) == 0 {
		return nil, err
	}
	s := &replSampler{stop: make(chan struct{}), done: make(chan struct{}), flush: map[string]time.Duration{}, replay: map[string]time.Duration{}}
	s.sum.Source, s.sum.GTID = w.Source(), w.GTID()
	go s.run(w)
	return s, nil
}

// ReplicationReadable reads the target's replicas once, as a run will: no
// state and no error for a server without replicas (or an engine that
// reports none); an error naming what the benchmark account cannot read.
// The watch is returned open when there are replicas.
func ReplicationReadable(ctx context.Context, t engine.Target) ([]engine.ReplicaState, engine.ReplicaWatch, error) {
	rr, ok := t.Engine.(engine.ReplicationReader)
	if !ok {
		return nil, nil, nil
	}
	w, err := rr.WatchReplicas(ctx, t)
	if err != nil || w == nil {
		return nil, nil, err
	}
	states, _, err := w.Read(ctx)
	if err != nil || len(states) == 0 {
		w.Close()
		return nil, nil, err
	}
	return states, w, nil
}

func (s *replSampler) run(w engine.ReplicaWatch) {
	defer close(s.done)
	defer w.Close()
	tick := time.NewTicker(replicationEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		// A read cut short would leave its reply on the connection, out of
		// step with the next: the bound is generous, and the first error
		// ends the sampling (the result keeps what was read).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		states, pos, err := w.Read(ctx)
		cancel()
		if err != nil {
			return
		}
		s.add(states, pos)
	}
}

// add takes one sample: maxima always, means over samples in which the
// primary wrote WAL since the one before.
func (s *replSampler) add(states []engine.ReplicaState, pos int64) {
	writing := s.sum.Samples > 0 && pos > s.lastPos
	s.sum.Samples++
	s.lastPos = pos
	if writing {
		s.sum.Writing++
	}
	for _, st := range states {
		i := -1
		for k, r := range s.sum.Replicas {
			if r.Name == st.Name {
				i = k
			}
		}
		if i < 0 {
			s.sum.Replicas = append(s.sum.Replicas, result.ReplicaLag{Name: st.Name})
			i = len(s.sum.Replicas) - 1
		}
		r := &s.sum.Replicas[i]
		r.Sync = st.SyncState
		r.MaxLagBytes = max(r.MaxLagBytes, st.LagBytes)
		r.MaxLagTransactions = max(r.MaxLagTransactions, st.LagTransactions)
		r.MaxFlushLagMs = max(r.MaxFlushLagMs, ms(st.FlushLag))
		r.MaxReplayLagMs = max(r.MaxReplayLagMs, ms(st.ReplayLag))
		if writing {
			s.flush[st.Name] += st.FlushLag
			s.replay[st.Name] += st.ReplayLag
		}
	}
}

// result stops the sampler and summarises what it read.
func (s *replSampler) result() *result.Replication {
	s.halt()
	<-s.done
	out := s.sum
	out.Replicas = append([]result.ReplicaLag(nil), s.sum.Replicas...)
	for i := range out.Replicas {
		if n := out.Writing; n > 0 {
			out.Replicas[i].MeanFlushLagMs = ms(s.flush[out.Replicas[i].Name]) / float64(n)
			out.Replicas[i].MeanReplayLagMs = ms(s.replay[out.Replicas[i].Name]) / float64(n)
		}
	}
	return &out
}

func (s *replSampler) halt() { s.stopOnce.Do(func() { close(s.stop) }) }
