package suiterun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/runner"
)

// errOverran is the cause a watchdog ends a block's or cell's context with.
var errOverran = errors.New("ran past its bound")

// watchdog bounds a block of n cells (or one cell, n = 1): its measured
// time and warm-up per cell, plus a grace per cell for what has a bound of
// its own (connecting, engine.ConnectTimeout; a turn's drain and a
// reconnect, --reconnect-timeout's default, three times; settling the
// servers, quiet.MaxWait, twice; a cold warm-up) and a minute. Every wait
// inside the block takes the context it returns (connect and
// authentication, set-up statements and proofs, turns, quiescing and
// settling), so when the bound passes they all end: the block's
// connections are shut, and its error (overran) says so in one line.
func (x *measurer) watchdog(ctx context.Context, n int) (context.Context, context.CancelFunc, time.Duration) {
	st := x.Plan.Suite
	perCell := time.Duration(st.Time+st.Warmup)*time.Second + time.Second
	grace := engine.ConnectTimeout + 3*runner.DefaultReconnectTimeout + 2*quiet.MaxWait
	bound := time.Duration(n)*(perCell+grace) + time.Minute
	wctx, cancel := context.WithTimeoutCause(ctx, bound, errOverran)
	return wctx, cancel, bound
}

// overran rewrites err for a block whose watchdog fired: one line that
// says what happened, instead of whichever wait the watchdog ended first.
func overran(ctx context.Context, bound time.Duration, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errOverran) {
		return err
	}
	return fmt.Errorf("still running %v after it began, past its bound (time and warm-up plus a grace for connecting, draining and settling): the server stopped answering; its connections were closed (last wait: %s)",
		bound.Round(time.Second), firstLine(err))
}
