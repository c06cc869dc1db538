package engine

import (
	"context"
	"time"
)

// LockWaits are a server's cumulative counts of the times a statement
// waited for a lock held by another transaction, and how long.
type LockWaits struct {
	Waits int64
	Time  time.Duration
}

// Sub is what happened between an earlier reading u and t.
func (t LockWaits) Sub(u LockWaits) LockWaits {
	return LockWaits{Waits: t.Waits - u.Waits, Time: t.Time - u.Time}
}

// Add is t and u together (two windows' waits).
func (t LockWaits) Add(u LockWaits) LockWaits {
	return LockWaits{Waits: t.Waits + u.Waits, Time: t.Time + u.Time}
}

// LockCounter is implemented by engines whose servers count lock waits.
// The counts are the whole server's: on a server others use, their
// sessions' waits are in them too.
type LockCounter interface {
	LockWaits(ctx context.Context, c Conn) (LockWaits, error)
	// LockWaitSource names where LockWaits reads from.
	LockWaitSource() string
}
