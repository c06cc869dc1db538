package oltp

import (
	"context"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"slices"
	"testing"

	"github.com/encbench/encbench/internal/engine"
)

// execConn records the session statements a worker runs; statements it
// prepares are never run.
type execConn struct {
	engine.Conn
	execs []string
}

func (c *execConn) Exec(_ context.Context, sql string) error {
	c.execs = append(c.execs, sql)
	return nil
}

func (c *execConn) Prepare(context.Context, string) (engine.Stmt, error) { return nil, nil }

// An enc worker's session takes parameters as bytes where the dialect says
// so, the plain variant included, so only encryption differs.
func TestEncWorkerTakesParametersAsBytes(t *testing.T) {
	o := testOptions()
	w, err := Family{}.New("enc_point_select", &o)
	if err != nil {
		t.Fatal(err)
	}
	conn := &execConn{}
	d := encDialect{EngineSQL: colenclayer.EngineSQL{BytesParams: "SET SESSION character_set_client = binary"}}
	if _, err := w.(*Workload).newEncWorker(context.Background(), conn, d, 0, 1, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(conn.execs, []string{d.BytesParams}) {
		t.Errorf("session statements %q, want only %q", conn.execs, d.BytesParams)
	}
}
