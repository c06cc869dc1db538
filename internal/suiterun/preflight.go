package suiterun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
)

// checkTargetSettings refuses, before anything runs, a variant that a DSN
// target's settings cannot serve, naming the suite key and its line.
func (x *Executor) checkTargetSettings(ls *liveSetup, s spec.Spec) error {
	if ls.Sandbox {
		return nil
	}
	if _, err := engine.ParseTarget(s.Server.DSN, s.Server.TLS); err != nil {
		st := x.Plan.Suite
		if ls.variant.TLS && s.Server.TLS.Mode != engine.TLSRequire && s.Server.TLS.CAFile == "" {
			return errs.Usage("%svariant %s needs tls_ca (the server's CA certificate) on target %s", st.TargetLine(ls.target.Name), ls.Variant, ls.target.Name)
		}
		return errs.Usage("%starget %s, variant %s: %w", st.TargetLine(ls.target.Name), ls.target.Name, ls.Variant, err)
	}
	return nil
}

// preflight connects once to every DSN target with each of its variants'
// own settings before anything is prepared: a wrong password, an address
// that does not answer or a TLS handshake that fails stops the suite
// here, once, instead of failing every cell.
func (x *Executor) preflight(ctx context.Context) error {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if ls.Sandbox {
			continue
		}
		s, err := x.cellSpec(ls, x.firstCell(ls))
		if err != nil {
			return errs.Usage("setup %s: %w", su.ID, err)
		}
		t, err := engine.ParseTarget(s.Server.DSN, s.Server.TLS)
		if err != nil {
			return x.checkTargetSettings(ls, s)
		}
		if err := connectOnce(ctx, t, ls.variant.TLS); err != nil {
			return fmt.Errorf("%starget %s, variant %s: %w; the suite stops before preparing or measuring anything", x.Plan.Suite.TargetLine(ls.target.Name), ls.target.Name, ls.Variant, err)
		}
	}
	return nil
}

// connectOnce opens and closes one connection, and with TLS asks the
// server whether the session is encrypted.
func connectOnce(ctx context.Context, t engine.Target, wantTLS bool) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := t.Engine.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	if !wantTLS {
		return nil
	}
	st, err := c.TLSState(ctx)
	if err != nil {
		return fmt.Errorf("asking the server about the session's TLS: %w", err)
	}
	if !st.Encrypted {
		return errors.New("the server says the session is not encrypted, though TLS was asked for")
	}
	return nil
}

// firstCell is a cell of the setup's, for the settings its runs use.
func (x *Executor) firstCell(ls *liveSetup) suite.Cell {
	for _, c := range x.Plan.Cells {
		if c.Setup == ls.ID {
			return c
		}
	}
	w := x.Plan.Suite.Workloads[0]
	return suite.Cell{Setup: ls.ID, Variant: ls.Variant, Workload: w.Name, Options: w.OptionStrings(), Threads: x.Plan.Suite.Threads[0], Repetition: 1}
}
