package integration

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// slowWrites makes every write of a connection's set-up return 20 ms after
// its bytes were sent, as a write does on a busy machine when the writing
// thread loses its CPU: the server's answer is back before the driver sees
// its write finish. That is what starts pgconn's background reader (its
// slow-write timer fires at 15 ms) with a reply to read.
type slowWrites struct {
	net.Conn
	slow *atomic.Bool
}

func (c slowWrites) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if c.slow.Load() {
		time.Sleep(20 * time.Millisecond)
	}
	return n, err
}

func slowSetUp(slow *atomic.Bool) func(engine.DialFunc) engine.DialFunc {
	return func(d engine.DialFunc) engine.DialFunc {
		return func(ctx context.Context, network, address string) (net.Conn, error) {
			c, err := d(ctx, network, address)
			if err != nil {
				return nil, err
			}
			return slowWrites{Conn: c, slow: slow}, nil
		}
	}
}

// Taking a connection over from its driver loses no reply: after a set-up
// whose every write was slow, the first statements on the taken-over
// connection get their answers. On PostgreSQL this failed before the
// take-over called SyncConn (the worker waited for a reply pgconn's
// background reader had taken); MariaDB's driver has no background reader,
// and the same test shape shows it.
func TestTakeOverLosesNoReply(t *testing.T) {
	for _, s := range servers(t) {
		{
			for _, worker := range []bool{false, true} {
				t.Run(s.name+map[bool]string{false: "/admin", true: "/worker"}[worker], func(t *testing.T) {
					target, err := engine.ParseTarget(s.info.DSN, engine.TLSOptions{Mode: engine.TLSDisable})
					if err != nil {
						t.Fatal(err)
					}
					var slow atomic.Bool
					target.WrapDial, target.Worker = slowSetUp(&slow), worker
					for i := range 10 {
						slow.Store(true)
						c, err := target.Engine.Connect(context.Background(), target)
						slow.Store(false)
						if err != nil {
							t.Fatalf("connection %d: %v", i, err)
						}
						ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
						start := time.Now()
						_, err = c.TLSState(ctx)
						if err == nil {
							_, err = c.Query(ctx, "SELECT 1")
						}
						cancel()
						c.Close()
						if err != nil {
							t.Fatalf("connection %d: the first statements after the take-over: %v (after %v)", i, err, time.Since(start).Round(time.Millisecond))
						}
					}
				})
			}
		}
	}
}
