package orchestrator

import (
	"context"
	"fmt"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

// openLayers makes the spec's plugin layers concrete for the target's
// engine and hands a server-side column layer to the workload, which must
// have columns for it.
func openLayers(r *Resolved) error {
	for _, name := range r.Spec.Layers {
		specs, err := layer.Default().Parse(name)
		if err != nil {
			return errs.Usage("--layer: %v", err)
		}
		for _, s := range specs {
			l, _ := layer.Default().Lookup(s.Layer)
			p, ok := l.(layer.Plugin)
			if !ok {
				return errs.Usage("--layer %s: the %s layer has flags of its own (--variant %s stands for them)", name, s.Layer, name)
			}
			a, err := p.Open(s, r.Target.Engine.Kind())
			if err != nil {
				return err
			}
			if sc, ok := a.(layer.ServerColumns); ok {
				se, ok := r.Workload.(workload.ServerEncrypted)
				if !ok {
					return errs.Usage("%s encrypts a workload's text columns on the server, which only the oltp_* workloads take so far; %s does not", s.Layer, r.Workload.Name())
				}
				if err := se.UseServerColumns(sc); err != nil {
					return err
				}
			}
			r.Layers = append(r.Layers, a)
		}
	}
	return nil
}

// layerEnv is what the layers' hooks see of the run.
func (r *Resolved) layerEnv(s layer.Session) layer.Env {
	env := layer.Env{Session: s, Sandbox: r.Sandbox != nil}
	if r.Sandbox != nil {
		env.DataDir = r.Sandbox.DataDir
	}
	if se, ok := r.Workload.(workload.ServerEncrypted); ok {
		env.Columns = se.ServerColumns()
	}
	return env
}

// requireLayers checks (and on a sandbox sets up) what each layer needs
// of the server, before anything is created or measured.
func requireLayers(ctx context.Context, r *Resolved, s layer.Session) error {
	for _, a := range r.Layers {
		if err := a.Require(ctx, r.layerEnv(s)); err != nil {
			return fmt.Errorf("%s on %s: %w", a.Spec(), r.Target.Redacted(), err)
		}
	}
	return nil
}

// proveLayers reads each layer's proof from the server's side.
func proveLayers(ctx context.Context, r *Resolved, s engine.Conn) ([]result.LayerProof, error) {
	var out []result.LayerProof
	if len(r.Layers) == 0 {
		return nil, nil
	}
	env := r.layerEnv(s)
	if _, ok := s.(engine.Documents); !ok {
		marker, err := workload.ReadMarker(ctx, s, r.Target.Engine.Dialect())
		if err != nil {
			return nil, err
		}
		env.Marker = marker
	}
	for _, a := range r.Layers {
		p, err := a.Prove(ctx, env)
		if err != nil {
			return out, fmt.Errorf("%s not proven: %w", a.Spec(), err)
		}
		p.Layer, p.Leakage = a.Spec().String(), a.Leakage()
		out = append(out, p)
	}
	return out, nil
}

func layerNames(ps []result.LayerProof) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Layer
	}
	return out
}

// CheckLayers is a pre-flight of the spec's plugin layers on its server:
// what each needs of it is there (on a sandbox, set up), before a suite
// prepares or measures anything.
func CheckLayers(ctx context.Context, s spec.Spec, reg *workload.Registry) error {
	if len(s.Layers) == 0 {
		return nil
	}
	r, err := Resolve(s, reg, nil)
	if err != nil {
		return err
	}
	c, err := r.Target.Engine.Connect(ctx, r.Target)
	if err != nil {
		return err
	}
	defer c.Close()
	return requireLayers(ctx, r, c)
}
