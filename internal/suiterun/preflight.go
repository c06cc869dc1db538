package suiterun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
)

// checkTargetSettings refuses, before anything runs, a variant that a DSN
// target's settings cannot serve, naming the suite key and its line.
func (x *servers) checkTargetSettings(ls *liveSetup, s spec.Spec) error {
	if ls.Sandbox {
		return nil
	}
	if _, err := ls.parsed.WithTLS(s.Server.TLS); err != nil {
		st := x.Plan.Suite
		if ls.variant.Has("tls") && s.Server.TLS.Mode != engine.TLSRequire && s.Server.TLS.CAFile == "" {
			return errs.Usage("%svariant %s needs tls_ca (the server's CA certificate) on target %s", st.TargetLine(ls.target.Name), ls.Variant, ls.target.Name)
		}
		return errs.Usage("%starget %s, variant %s: %w", st.TargetLine(ls.target.Name), ls.target.Name, ls.Variant, err)
	}
	return nil
}

// Preflight proves, before anything is prepared or measured (and before
// a new suite claims its directory), what each DSN target's setups need:
// a connection with the setup's own settings (TLS proven by the server),
// the right to create, fill and drop tables, a server that can encrypt the
// tde setups' tables, and data sets this suite may reuse or replace. A
// failure stops the suite once, naming the target's line.
func (x *Executor) Preflight(ctx context.Context) error {
	x.srv.reuse, x.srv.replace = map[string]*orchestrator.DataSet{}, map[string]bool{}
	for _, su := range x.Plan.Setups {
		ls := x.srv.setups[su.ID]
		if ls.Sandbox {
			continue
		}
		at := fmt.Sprintf("%starget %s, variant %s", x.Plan.Suite.TargetLine(ls.target.Name), ls.target.Name, ls.Variant)
		first, ok := x.srv.firstCell(ls)
		if !ok {
			continue // no workload runs in this variant on this target
		}
		s, err := x.srv.cellSpec(ls, first)
		if err != nil {
			return errs.Usage("%s: %w", at, err)
		}
		t, err := ls.parsed.WithTLS(s.Server.TLS)
		if err != nil {
			return x.srv.checkTargetSettings(ls, s)
		}
		if ls.copies != "" && ls.owner == nil {
			if err := x.srv.createCopies(ctx, ls, t); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
		if err := preflightConn(ctx, t, ls); err != nil {
			return fmt.Errorf("%s: %w; the suite stops before preparing or measuring anything", at, err)
		}
		if err := orchestrator.CheckLayers(ctx, s, x.Registry); err != nil {
			return fmt.Errorf("%s: %w; the suite stops before preparing or measuring anything", at, err)
		}
		// A user's cluster gets the replication figures the benchmark
		// account can read; what it cannot is said once, here, and the
		// cells run without them (encbench changes no replication setting).
		if _, w, err := orchestrator.ReplicationReadable(ctx, t); err != nil {
			fmt.Fprintf(x.Stderr, "encbench: %s: the replicas' state will not be measured: %v\n", at, errs.OneLine(err))
		} else if w != nil {
			w.Close()
		}
		if ls.owner == nil {
			if err := x.srv.checkDataSets(ctx, ls); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
	}
	return nil
}

// preflightConn opens one connection with the setup's settings and proves
// on it what the setup needs.
func preflightConn(ctx context.Context, t engine.Target, ls *liveSetup) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := t.Engine.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	if ls.variant.Has("tls") {
		st, err := c.TLSState(ctx)
		if err != nil {
			return fmt.Errorf("asking the server about the session's TLS: %w", err)
		}
		if !st.Encrypted {
			return errors.New("the server says the session is not encrypted, though TLS was asked for")
		}
	}
	if _, ok := c.(engine.Documents); ok {
		return nil
	}
	if ls.variant.Has("tde") {
		ar, ok := t.Engine.(engine.AtRest)
		if !ok {
			return errs.Usage("%s servers cannot encrypt tables, so variant %s cannot run on this target", t.Engine.Kind(), ls.Variant)
		}
		if _, err := ar.TDETableOption(ctx, c); err != nil {
			return err
		}
	}
	if ls.owner == nil {
		return canCreateTables(ctx, c)
	}
	return nil
}

// canCreateTables creates, fills and drops a table of a name no one else
// uses: what prepare and cleanup will do, proven before they run.
func canCreateTables(ctx context.Context, c engine.Conn) error {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	name := "encbench_probe_" + hex.EncodeToString(b[:])
	if err := c.Exec(ctx, "CREATE TABLE "+name+" (id INT PRIMARY KEY)"); err != nil {
		if lost(ctx, err) {
			return fmt.Errorf("the server stopped answering while encbench checked that it may create tables: %w", err)
		}
		return errs.Usage("the user cannot create tables in this database (%w): grant it CREATE, INSERT, DROP and the rest of what the README's \"Your own servers\" lists", err)
	}
	err := c.Exec(ctx, "INSERT INTO "+name+" VALUES (1)")
	if derr := c.Exec(ctx, "DROP TABLE "+name); derr != nil {
		return fmt.Errorf("dropping the probe table %s (drop it by hand): %w", name, derr)
	}
	if err != nil {
		if lost(ctx, err) {
			return fmt.Errorf("the server stopped answering while encbench checked that it may insert: %w", err)
		}
		return errs.Usage("the user cannot insert into a table it created (%w): grant it INSERT", err)
	}
	return nil
}

// lost says a statement failed because the server stopped answering or
// the connection went away (a runtime failure), not because the server
// refused it (a privilege the user must grant).
func lost(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || engine.TransportLost(err)
}

// createCopies checks that the server can encrypt tables, then makes the
// database that holds a tde setup's encrypted copies when it does not
// exist yet (connecting to it fails).
func (x *servers) createCopies(ctx context.Context, ls *liveSetup, copies engine.Target) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tls := engine.TLSOptions{Mode: engine.TLSDisable}
	if ls.variant.Has("tls") {
		tls = copies.TLS
	}
	t, err := ls.main.WithTLS(tls)
	if err != nil {
		return err
	}
	c, err := t.Engine.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	// What the server lacks comes first: copies it cannot encrypt would
	// need no database.
	ar, ok := t.Engine.(engine.AtRest)
	if !ok {
		return errs.Usage("%s servers cannot encrypt tables, so variant %s cannot run on this target", t.Engine.Kind(), ls.Variant)
	}
	if _, err := ar.TDETableOption(ctx, c); err != nil {
		return err
	}
	if cc, err := copies.Engine.Connect(ctx, copies); err == nil {
		cc.Close()
		return nil
	}
	if err := c.Exec(ctx, "CREATE DATABASE "+ls.copies); err != nil {
		return errs.Usage("the encrypted copies of the tables go in database %s on the same server, which does not exist and cannot be created (%w): create it and grant the user on it, or set tde_database or tde_dsn", ls.copies, err)
	}
	fmt.Fprintf(x.Stdout, "created database %s on %s for the encrypted copies of the tables (encbench drops its tables at cleanup, never the database)\n", ls.copies, ls.target.Name)
	return nil
}

// checkDataSets decides, per workload family, whether the target already
// holds this suite's data set (reused: no reload), one of other
// parameters (refused unless recreate_data), or none.
func (x *servers) checkDataSets(ctx context.Context, ls *liveSetup) error {
	sets, err := x.dataSets(ls)
	if err != nil {
		return err
	}
	for _, d := range sets {
		ds, err := orchestrator.ReadDataSet(ctx, d.spec, x.Registry)
		if err != nil {
			return err
		}
		if ds == nil {
			continue // none yet: prepare makes it
		}
		key := ls.ID + "/" + d.family
		want := orchestrator.DataParams(d.spec)
		switch {
		case ds.Params == want:
			x.reuse[key] = ds
		case x.Plan.Suite.RecreateData:
			x.replace[key] = true
			fmt.Fprintf(x.Stdout, "the %s data set on %s was prepared with %s: replacing it (recreate_data: true)\n", d.family, ls.target.Name, ds.Params)
		default:
			return errs.Usage("it holds a %s data set prepared %s with %s, and this suite asks for %s: set recreate_data: true in the suite to replace it, or use another database",
				d.family, ds.PreparedAt, ds.Params, want)
		}
	}
	return nil
}

// firstCell is a cell of the setup's, for the settings its runs use.
func (x *servers) firstCell(ls *liveSetup) (suite.Cell, bool) {
	for _, c := range x.Plan.Cells {
		if c.Setup == ls.ID {
			return c, true
		}
	}
	return suite.Cell{}, false
}

// tdeTarget points a DSN target's tde setup at tde_dsn, or at the
// database of the same server that holds the encrypted copies.
func (x *servers) tdeTarget(ls *liveSetup) error {
	t := ls.target
	line := x.Plan.Suite.TargetLine(t.Name)
	if t.TDEDSN != "" {
		ls.target.DSN = os.ExpandEnv(t.TDEDSN)
		ls.pid = t.TDEServerPID
		var err error
		if ls.parsed, err = engine.ParseDSN(ls.target.DSN); err != nil {
			return errs.Usage("%starget %s, tde_dsn: %w", line, t.Name, err)
		}
		return nil
	}
	db, err := engine.Database(ls.target.DSN)
	if err != nil {
		return errs.Usage("%starget %s: %w", line, t.Name, err)
	}
	ls.copies = t.TDEDatabase
	if ls.copies == "" {
		if db == "" {
			return errs.Usage("%starget %s: its DSN names no database, so the encrypted copies have no name: add one to the DSN, or set tde_database or tde_dsn", line, t.Name)
		}
		ls.copies = db + "_tde"
	}
	if !validDatabase(ls.copies) || ls.copies == db {
		return errs.Usage("%starget %s: tde_database %q: name another database of letters, digits and _", line, t.Name, ls.copies)
	}
	ls.target.DSN, err = engine.WithDatabase(ls.target.DSN, ls.copies)
	if err != nil {
		return errs.Usage("%starget %s: %w", line, t.Name, err)
	}
	if ls.parsed, err = engine.ParseDSN(ls.target.DSN); err != nil {
		return errs.Usage("%starget %s: %w", line, t.Name, err)
	}
	return nil
}

// validDatabase keeps a name encbench puts in CREATE DATABASE to one that
// needs no quoting on any engine.
func validDatabase(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Check resolves every setup and builds every cell's spec before anything
// starts, so a mistake in a suite file fails in the first second.
func (x *Executor) Check() error {
	x.parts()
	n := runtime.NumCPU()
	x.srv.clientCPUs = suite.Placement(x.Plan.Suite.ClientCPUs, false, n)
	x.srv.serverCPUs = suite.Placement(x.Plan.Suite.ServerCPUs, true, n)
	if _, err := orchestrator.ParseCPUList(x.srv.clientCPUs); err != nil {
		return errs.Usage("client_cpus %q: give a CPU list below %d, auto or none", x.srv.clientCPUs, n)
	}
	if err := x.Plan.Suite.CheckOptions(Catalogue(x.Registry)); err != nil {
		return errs.Usage("%w", err)
	}
	x.srv.setups = map[string]*liveSetup{}
	for _, su := range x.Plan.Setups {
		t, _ := x.Plan.Suite.Target(su.Target)
		v, err := x.Plan.Suite.VariantOf(su.Variant)
		if err != nil {
			return errs.Usage("setup %s: %w", su.ID, err)
		}
		ls := &liveSetup{Setup: su, target: t, variant: v, pid: t.ServerPID}
		if su.Sandbox {
			ls.sandboxDir = x.Dir.Sandbox(su.ServerID())
		} else {
			ls.target.DSN = os.ExpandEnv(t.DSN)
			if ls.main, err = engine.ParseDSN(ls.target.DSN); err != nil {
				return errs.Usage("target %s: %w", t.Name, err)
			}
			ls.parsed = ls.main
			if v.Has("tde") {
				if err := x.srv.tdeTarget(ls); err != nil {
					return err
				}
			}
		}
		x.srv.setups[su.ID] = ls
	}
	for _, ls := range x.srv.setups {
		if ls.Owner == "" {
			continue
		}
		ls.owner = x.srv.setups[ls.Owner]
		ls.owner.shared = true
		ls.owner.offerTLS = ls.owner.offerTLS || ls.variant.Has("tls")
	}
	for _, c := range x.Plan.Cells {
		s, err := x.srv.cellSpec(x.srv.setups[c.Setup], c)
		if err != nil {
			return errs.Usage("suite cell %s: %w", c.ID, err)
		}
		if err := x.srv.checkTargetSettings(x.srv.setups[c.Setup], s); err != nil {
			return err
		}
		fam, _ := x.Registry.Lookup(s.Workload)
		wl, err := fam.New(s.Workload, s.Options)
		if err == nil {
			err = wl.Validate(s.Threads)
		}
		if err != nil {
			return errs.Usage("suite cell %s: %w", c.ID, err)
		}
	}
	return x.checkBudget()
}

// checkBudget refuses, before anything starts, a suite whose smallest
// plan (SmallestBlocks of every cell not finished yet) cannot end within
// its budget even at the cells' own measuring time, without their
// set-up, starts and drains: the planner would then stop it with losses
// that have no interval.
func (x *Executor) checkBudget() error {
	budget := x.Plan.Suite.BudgetDuration()
	if budget <= 0 {
		return nil
	}
	smallest := x.Plan.Suite.SmallestBlocks()
	n := 0
	for _, c := range x.Plan.Cells {
		if c.Repetition <= smallest && !x.led.done(c) {
			n++
		}
	}
	each := time.Duration(x.Plan.Suite.Time+x.Plan.Suite.Warmup) * time.Second
	least := time.Duration(n) * each
	if least <= budget {
		return nil
	}
	return errs.Usage("suite %s: its smallest plan, %d blocks of every cell (%d cells of %v each), takes at least %v before any set-up, more than the budget of %v: give --budget %v or more, or fewer workloads, threads or variants",
		x.Plan.Suite.Name, smallest, n, each, least, budget, (2*least).Round(time.Minute)+time.Minute)
}
