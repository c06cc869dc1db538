// Package tde is the at-rest layer of the server's own storage engine:
// InnoDB tablespace encryption (MariaDB's file_key_management plugin on a
// sandbox; MySQL's keyring or pg_tde on a DSN server set up for it).
package tde

import "github.com/encbench/encbench/internal/layer"

func init() { layer.Register(Layer{}) }

// Layer describes TDE.
type Layer struct{}

func (Layer) Name() string { return "tde" }
func (Layer) Summary() string {
	return "the server's transparent data encryption: tables, redo and temporary files encrypted by the storage engine with a key the server holds"
}
func (Layer) Where() layer.Where { return layer.AtRest }
func (Layer) Options() []layer.Option {
	return []layer.Option{{Key: "cipher", Values: []string{"aes-ctr", "aes-cbc"}, Help: "the sandbox's file_key_management encryption algorithm (default aes-ctr)"}}
}
func (Layer) Aliases() []layer.Alias             { return nil }
func (Layer) Engines() []string                  { return []string{"mariadb"} }
func (Layer) Check(opts map[string]string) error { return nil }

// Rank: TDE follows TLS in a variant's name.
func (Layer) Rank() int { return 2 }

// Of reads the tde layer among a variant's specs: whether it is on, and
// the algorithm it names ("": the default).
func Of(specs []layer.Spec) (cipher string, on bool) {
	s, ok := layer.Find(specs, "tde")
	return s.Options["cipher"], ok
}

// ServerSpec: the server is started with TDE; its algorithm is set apart,
// by the sandbox's own option.
func (Layer) ServerSpec(layer.Spec) layer.Spec { return layer.Spec{Layer: "tde"} }
