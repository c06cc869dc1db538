package engine

import (
	"context"
	"time"
)

// ReplicaState is a primary's view of one replica at one moment.
type ReplicaState struct {
	Name      string
	SyncState string
	// LagBytes is how far the replica's replay is behind the primary's
	// WAL; WriteLag, FlushLag and ReplayLag are how long the primary's
	// most recent WAL took to be written, flushed and applied there
	// (PostgreSQL's pg_stat_replication). FlushLag is what a synchronous
	// commit waits for.
	LagBytes                      int64
	WriteLag, FlushLag, ReplayLag time.Duration
}

// ReplicationReader is an engine whose primary reports its replicas.
type ReplicationReader interface {
	// Replicas reads the replicas' state and the primary's WAL position
	// (bytes), on a connection that may read the statistics views.
	Replicas(ctx context.Context, c Conn) ([]ReplicaState, int64, error)
	ReplicationSource() string
}
