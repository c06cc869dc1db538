// Package orchestrator carries out encbench's phases: it takes a spec,
// resolves its target and workload, and prepares, runs, cleans up or
// checks, returning the result document. The CLI and the suite executor
// both build specs and call it; nothing here parses a command line.
package orchestrator

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

// Resolved is a spec made concrete: its server and its workload.
type Resolved struct {
	Spec     spec.Spec
	Target   engine.Target
	Workload workload.Workload
	// Sandbox is set when the target is a local sandbox.
	Sandbox *sandbox.Info
	// TDE: the tables are (to be) stored encrypted at rest.
	TDE bool
	// Layers are the spec's plugin layers, made concrete for its engine.
	Layers []layer.Active
}

// Resolve finds the spec's workload in reg and its server.
func Resolve(s spec.Spec, reg *workload.Registry, warn io.Writer) (*Resolved, error) {
	fam, err := reg.Lookup(s.Workload)
	if err != nil {
		return nil, err
	}
	if s.Options == nil {
		s.Options = workload.DefaultOptions(fam, s.Workload)
	}
	wl, err := fam.New(s.Workload, s.Options)
	if err != nil {
		return nil, err
	}
	if err := wl.Validate(s.Threads); err != nil {
		return nil, err
	}
	r := &Resolved{Spec: s, Workload: wl, TDE: s.TDE}
	dsn := s.Server.DSN
	if s.Server.Sandbox != "" {
		if dsn != "" {
			return nil, errs.Usage("give either --dsn or --sandbox, not both")
		}
		info, err := sandbox.Load(s.Server.Sandbox)
		if err != nil {
			return nil, err
		}
		dsn, r.Sandbox = info.DSN, info
		if info.ClusterDSN != "" {
			// The primary first, then its replicas: sessions reach the
			// primary while it is up, and the replicas are named for
			// the engines that read replication state on them.
			dsn = info.ClusterDSN
		}
		// A TDE sandbox's tables are stored encrypted without being asked.
		r.TDE = r.TDE || info.TDE()
		if r.Spec.Server.ServerPID == 0 {
			r.Spec.Server.ServerPID = info.PID
			for _, m := range info.Members {
				r.Spec.Server.MemberPIDs = append(r.Spec.Server.MemberPIDs, m.PID)
			}
		}
	}
	if dsn == "" {
		// Generators and containers pass the DSN here, so its password is
		// on no command line.
		dsn = os.Getenv(DSNEnv)
	}
	r.Target, err = engine.ParseTarget(dsn, s.Server.TLS)
	if err != nil {
		return nil, err
	}
	if a := s.Server.SessionAttrs; a != "" {
		u := *r.Target.URL
		q := u.Query()
		q.Set("target_session_attrs", a)
		u.RawQuery = q.Encode()
		if err := r.Target.Engine.Validate(&u, r.Target.TLS); err != nil {
			return nil, err
		}
		r.Target.URL = &u
	}
	if err := openLayers(r); err != nil {
		return nil, err
	}
	if r.Target.TLS.Mode == engine.TLSRequire && warn != nil {
		fmt.Fprintln(warn, "encbench: warning: --tls require encrypts but does not verify the server; use verify-full with --tls-ca for a server you do not control")
	}
	return r, nil
}

func (r *Resolved) env(log io.Writer) workload.Env {
	return workload.Env{Target: r.Target, Threads: r.Spec.Threads, Force: r.Spec.Force, TDE: r.TDE, Log: log}
}

// DSNEnv names the variable that gives the server when neither --dsn nor
// --sandbox does (before the PG* variables).
const DSNEnv = "ENCBENCH_DSN"

// Prepare creates and loads the workload's tables.
func Prepare(ctx context.Context, s spec.Spec, reg *workload.Registry, log io.Writer) error {
	r, err := Resolve(s, reg, log)
	if err != nil {
		return err
	}
	if len(r.Layers) > 0 {
		admin, err := r.Target.Engine.Connect(ctx, r.Target)
		if err != nil {
			return err
		}
		err = requireLayers(ctx, r, admin)
		admin.Close()
		if err != nil {
			return err
		}
	}
	if err := r.Workload.Prepare(ctx, r.env(log)); err != nil {
		return fmt.Errorf("prepare failed: %w", err)
	}
	fam, err := reg.Lookup(s.Workload)
	if err != nil {
		return err
	}
	if err := recordDataSet(ctx, r, fam.Name()); err != nil {
		return fmt.Errorf("prepare: recording the data set: %w", err)
	}
	return nil
}

// Cleanup drops the workload's tables (only those encbench created).
func Cleanup(ctx context.Context, s spec.Spec, reg *workload.Registry, log io.Writer) error {
	r, err := Resolve(s, reg, log)
	if err != nil {
		return err
	}
	if err := r.Workload.Cleanup(ctx, r.env(log)); err != nil {
		return fmt.Errorf("cleanup failed: %w", err)
	}
	fam, err := reg.Lookup(s.Workload)
	if err != nil {
		return err
	}
	if err := forgetDataSet(ctx, r, fam.Name()); err != nil {
		return fmt.Errorf("cleanup: forgetting the data set: %w", err)
	}
	return nil
}

// Check verifies the workload's consistency conditions on the server.
func Check(ctx context.Context, s spec.Spec, reg *workload.Registry, log io.Writer) ([]workload.CheckResult, error) {
	r, err := Resolve(s, reg, log)
	if err != nil {
		return nil, err
	}
	check := r.Workload.Capabilities().Check
	if check == nil {
		return nil, errs.Usage("workload %s has no consistency conditions to check (tpcc has)", s.Workload)
	}
	res, err := check(ctx, r.env(log))
	if err != nil {
		return nil, fmt.Errorf("check failed: %w", err)
	}
	return res, nil
}
