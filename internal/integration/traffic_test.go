package integration

import (
	"context"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
)

// TestTrafficCountsOneRoundTripPerStatement: a prepared statement is one
// round trip on both engines once connected.
func TestTrafficCountsOneRoundTripPerStatement(t *testing.T) {
	const n = 50
	for _, s := range servers(t) {
		for _, mode := range []string{engine.TLSDisable} {
			t.Run(s.name+"/"+mode, func(t *testing.T) {
				target, err := engine.ParseTarget(s.info.DSN, engine.TLSOptions{Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				target.Worker = true
				ctx := context.Background()
				c, err := target.Engine.Connect(ctx, target)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				st, err := c.Prepare(ctx, "SELECT ?")
				if err != nil {
					t.Fatal(err)
				}
				tr, ok := c.(engine.Trafficker)
				if !ok {
					t.Fatalf("%T counts no traffic", c)
				}
				before, ok := tr.Traffic()
				if !ok {
					t.Fatal("the connection is not on an encbench socket")
				}
				for i := range n {
					if err := st.Query([]engine.Arg{{Int: int64(i)}}, func([][]byte) error { return nil }); err != nil {
						t.Fatal(err)
					}
				}
				after, _ := tr.Traffic()
				d := netconn.Traffic{BytesIn: after.BytesIn - before.BytesIn, BytesOut: after.BytesOut - before.BytesOut, RoundTrips: after.RoundTrips - before.RoundTrips}
				if d.RoundTrips != n || d.BytesIn <= 0 || d.BytesOut <= 0 {
					t.Fatalf("%d statements: %+v, want %d round trips", n, d, n)
				}
			})
		}
	}
}
