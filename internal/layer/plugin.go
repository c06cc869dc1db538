package layer

import (
	"context"

	"github.com/encbench/encbench/internal/proof"
)

// Plugin is a layer a run carries out through its hooks alone: a new
// layer of this kind is its own package and one registration line, with
// no field of its own in the variant, the run's spec or the result. (TLS,
// TDE and client-side columns predate it: a variant names them as it names
// any layer, but a run carries them by its own TLS options, TDE flag and
// workload options, and a result keeps their proofs where earlier versions
// wrote them.)
type Plugin interface {
	Layer
	// Open makes the layer concrete for an engine kind (postgres, mysql)
	// with the options Parse accepted; a usage error (errs.Usage) when
	// the engine cannot run it.
	Open(s Spec, engineKind string) (Active, error)
	// OnServer says the layer changes the server itself (its files, its
	// start), so a sandbox server is started with it and setups with and
	// without it do not share a server.
	OnServer() bool
}

// Session is the part of a server connection a layer uses; an
// engine.Conn is one.
type Session interface {
	Exec(ctx context.Context, sql string) error
	Query(ctx context.Context, sql string) ([][]string, error)
}

// Column is one column of a workload's table that a layer encrypts.
type Column struct {
	Table, Name string
	// Chars is the column's declared length in characters.
	Chars int
}

// Env is what a layer's server-side hooks see of the run.
type Env struct {
	Session Session
	// Sandbox says the server is encbench's own: Require may set up what
	// is missing (an extension), where on a server of the user's it only
	// checks.
	Sandbox bool
	// DataDir is a sandbox's data directory ("" for a DSN target).
	DataDir string
	// Columns are the workload's columns a column layer encrypts.
	Columns []Column
	// Marker is prepare's marker row ("" when none): a string the raw
	// files of an at-rest layer must not hold.
	Marker string
}

// Active is a layer made concrete for one engine.
type Active interface {
	Spec() Spec
	// Require checks that the server has what the layer needs (and on a
	// sandbox sets it up); a usage error naming what is missing when not.
	Require(ctx context.Context, env Env) error
	// Prove reads from the server's side that the layer is on, before the
	// run measures; an error when it is not.
	Prove(ctx context.Context, env Env) (proof.LayerProof, error)
	// Leakage is what the layer leaves visible, and to whom, as message
	// ids of the report's catalogue (leak.<id>.primitive, .reveals,
	// .enables).
	Leakage() string
}

// ServerColumns is an active layer the server carries out on a
// workload's non-key text columns: the client sends plaintext and the
// key, the server encrypts on write and decrypts on read. A workload
// that has such columns rewrites its statements with it.
type ServerColumns interface {
	Active
	// ColumnType is the stored type of an encrypted column of n characters.
	ColumnType(chars int) string
	// Write is the SQL expression that stores the value of expr (a
	// placeholder or a column) encrypted.
	Write(expr string) string
	// Read is the SQL expression that gives a stored column's plaintext.
	Read(column string) string
	// SessionSetup are statements each connection runs once, before any
	// other (the key).
	SessionSetup() ([]string, error)
	// Convert are the statements that encrypt a loaded plaintext column in
	// place (prepare loads plaintext as it always does, then converts).
	Convert(c Column) []string
}

// DataDir is an active layer below the server's files: a sandbox's data
// directory is made on it before the server initialises it, and the
// layer is undone when the sandbox stops.
type DataDir interface {
	Active
	// SetUp makes the data directory of the sandbox in dir (which does
	// not exist yet) and returns where it is and the state TearDown needs
	// (kept in the sandbox's state file).
	SetUp(ctx context.Context, dir string) (dataDir string, state map[string]string, err error)
	TearDown(state map[string]string) error
}
