package engine

import (
	"context"
	"time"
)

// ReplicaState is one replica at one moment, as the servers report it.
type ReplicaState struct {
	Name      string
	SyncState string
	// LagBytes is how far the replica's replay is behind the primary's
	// WAL (PostgreSQL); LagTransactions how many of the primary's
	// transactions it has not applied yet (MySQL/MariaDB GTIDs). WriteLag,
	// FlushLag and ReplayLag are how long the primary's most recent WAL
	// took to be written, flushed and applied there (PostgreSQL's
	// pg_stat_replication); FlushLag is what a synchronous commit waits
	// for, and on MariaDB it is the semi-synchronous commits' mean wait
	// for the replica's acknowledgement since the sample before.
	LagBytes                      int64
	LagTransactions               int64
	WriteLag, FlushLag, ReplayLag time.Duration
}

// ReplicationReader is an engine that can report a primary's replicas.
type ReplicationReader interface {
	// WatchReplicas opens what reading them takes (a session on the
	// primary; on MySQL/MariaDB, whose primary does not know its
	// replicas' progress, a session on each replica the target's host
	// list names); nil and no error when the target has no replica.
	WatchReplicas(ctx context.Context, t Target) (ReplicaWatch, error)
}

// ReplicaWatch reads the replicas' state, one sample per Read.
type ReplicaWatch interface {
	// Read returns each replica's state and the primary's position (WAL
	// bytes, or its last GTID's sequence number), which only grows while
	// it writes.
	Read(ctx context.Context) ([]ReplicaState, int64, error)
	// Source names what is read, for the result.
	Source() string
	// GTID says positions are GTID sequence numbers, not WAL bytes.
	GTID() bool
	Close() error
}
