package orchestrator

import (
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// The means are over the samples in which the primary wrote: an idle
// moment (no WAL) does not dilute them; maxima take every sample.
func TestReplicationMeansWhileWriting(t *testing.T) {
	s := &replSampler{stop: make(chan struct{}), done: make(chan struct{}), flush: map[string]time.Duration{}, replay: map[string]time.Duration{}}
	close(s.done)
	for _, x := range []struct {
		pos   int64
		flush time.Duration
	}{{100, 9 * time.Millisecond}, {200, 2 * time.Millisecond}, {300, 4 * time.Millisecond}, {300, 0}, {300, 0}} {
		s.add([]engine.ReplicaState{{Name: "r1", SyncState: "sync", FlushLag: x.flush, LagBytes: x.pos / 10}}, x.pos)
	}
	r := s.result()
	got := r.Replicas[0]
	if r.Samples != 5 || r.Writing != 2 || got.MeanFlushLagMs != 3 || got.MaxFlushLagMs != 9 || got.MaxLagBytes != 30 || got.Sync != "sync" {
		t.Errorf("%+v %+v", r, got)
	}
}
