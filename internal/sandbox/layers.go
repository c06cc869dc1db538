package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/variant"
)

// dataDirLayers are the variant's plugin layers below the server's files.
func dataDirLayers(engine, name string) ([]layer.DataDir, error) {
	v, err := variant.Parse(name)
	if err != nil {
		return nil, err
	}
	var out []layer.DataDir
	for _, s := range v.Plugins() {
		l, _ := layer.Default().Lookup(s.Layer)
		p := l.(layer.Plugin)
		if !p.OnServer() {
			continue
		}
		a, err := p.Open(s, engine)
		if err != nil {
			return nil, err
		}
		if d, ok := a.(layer.DataDir); ok {
			out = append(out, d)
		}
	}
	if len(out) > 1 {
		return nil, fmt.Errorf("variant %s puts the data directory on %d layers; one can hold it", name, len(out))
	}
	return out, nil
}

// setUpLayers makes the data directory on the variant's layer, if it
// has one, and links dir/data to it, where the engine's set-up makes it.
func setUpLayers(ctx context.Context, o Options, dir string) (map[string]map[string]string, error) {
	layers, err := dataDirLayers(o.Engine, o.Variant)
	if err != nil || len(layers) == 0 {
		return nil, err
	}
	l := layers[0]
	data, state, err := l.SetUp(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := os.Symlink(data, filepath.Join(dir, "data")); err != nil {
		return nil, errors.Join(fmt.Errorf("linking the data directory: %w", err), l.TearDown(state))
	}
	return map[string]map[string]string{l.Spec().Layer: state}, nil
}

// tearDownLayers undoes what setUpLayers made, once the server stopped.
func tearDownLayers(engine, name string, states map[string]map[string]string) error {
	if len(states) == 0 {
		return nil
	}
	layers, err := dataDirLayers(engine, name)
	if err != nil {
		return err
	}
	var errList []error
	for _, l := range layers {
		if st, ok := states[l.Spec().Layer]; ok {
			errList = append(errList, l.TearDown(st))
		}
	}
	return errors.Join(errList...)
}
