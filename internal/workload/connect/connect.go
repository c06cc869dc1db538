// Package connect is the connection-anatomy workload of report R2: each
// event opens a new connection (timed), runs its first query (timed),
// closes it, then runs the same query on the worker's long-lived connection
// (timed), so connect cost and steady-state cost are measured side by side.
// With --connect-phase reused an event is only the reused query, a loop of
// its own as R2 timed it: right after a closed connection the server is
// still tearing it down (a backend's exit, a TLS shutdown) on the CPU the
// reused query needs.
package connect

import (
	"context"
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

func init() { workload.Register(Family{}) }

// Name is the workload's name.
const Name = "connect"

// table is created by prepare; the first query reads one of its rows.
const table = "encbench_connect"

// The event's parts, in the order events fill them and reports show them
// (the handshake is part of the connect).
const (
	partConnect = iota
	partTLSHandshake
	partFirstQuery
	partConnectFirstQuery
	partReusedQuery
	partCount
)

var parts = []workload.Part{
	partConnect:           {Name: "connect", Label: "connect (new client, ready)", Role: workload.RoleConnect},
	partTLSHandshake:      {Name: "tls_handshake", Label: "  of which TLS handshake", Role: workload.RoleHandshake},
	partFirstQuery:        {Name: "first_query", Label: "first query on the new connection"},
	partConnectFirstQuery: {Name: "connect_first_query", Label: "connect + first query", Role: workload.RoleConnectFirst},
	partReusedQuery:       {Name: "reused_query", Label: "query on a reused connection", Role: workload.RoleSteady},
}

// Family is the connect workload alone.
type Family struct{}

func (Family) Name() string { return Name }

func (Family) Workloads() map[string]string {
	return map[string]string{Name: "new connection + first query + close, then the same query on a reused connection (report R2)"}
}

// Options are the connect workload's flags.
type Options struct {
	Rows       int
	Resumption bool
	Reps       int64
	Phase      string
	Client     string
}

// The ways a new connection's client is made.
const (
	ClientReady = "ready"
	ClientLazy  = "lazy"
)

// The phases an event can run.
const (
	PhaseBoth   = "both"
	PhaseReused = "reused"
)

func (Family) NewOptions() workload.Options { return &Options{} }

func (o *Options) Bind(fs *pflag.FlagSet, _ string) {
	fs.IntVar(&o.Rows, "connect-rows", 1000, "rows in encbench_connect; each first query reads one by primary key")
	fs.BoolVar(&o.Resumption, "tls-resumption", false, "offer TLS session resumption (Go's client session cache) on new connections")
	fs.Int64Var(&o.Reps, "connections", 5000, "connections the connect workload opens when neither --events nor --time is given")
	fs.StringVar(&o.Phase, "connect-phase", PhaseBoth, "both: each event opens, queries and closes a new connection, then queries the worker's kept one; reused: each event is only the query on the kept connection, in a loop of its own as R2 timed it (no server-side teardown beside it)")
	fs.StringVar(&o.Client, "connect-client", ClientReady, "ready: connect times a client that can run a command (the server reached, TLS and authentication done); lazy, where the driver separates them (MongoDB's): connect times building the client alone and the first query waits for the server's or the replica set's discovery and its connection, as R2's pymongo client did")
	workload.Mark(fs, workload.Setting, "tls-resumption", "connections", "connect-phase", "connect-client")
}

func (Family) New(name string, opts workload.Options) (workload.Workload, error) {
	if name != Name {
		return nil, errs.Usage("unknown workload %q", name)
	}
	o := opts.(*Options)
	if o.Rows < 1 {
		return nil, errs.Usage("--connect-rows must be at least 1")
	}
	if o.Reps < 1 {
		return nil, errs.Usage("--connections must be at least 1")
	}
	if o.Phase != PhaseBoth && o.Phase != PhaseReused {
		return nil, errs.Usage("--connect-phase %q: give both or reused", o.Phase)
	}
	if o.Client != ClientReady && o.Client != ClientLazy {
		return nil, errs.Usage("--connect-client %q: give ready or lazy", o.Client)
	}
	return &Workload{rows: o.Rows, resumption: o.Resumption, reps: o.Reps, reusedOnly: o.Phase == PhaseReused, lazy: o.Client == ClientLazy}, nil
}

// Workload is the connect workload with its options fixed.
type Workload struct {
	rows       int
	resumption bool
	reps       int64
	reusedOnly bool
	lazy       bool
}

func (w *Workload) Name() string       { return Name }
func (w *Workload) Tables() []string   { return []string{table} }
func (w *Workload) Validate(int) error { return nil }

// Capabilities: the parts of a connection's life are timed on their own;
// a run is a number of connections by default; it only reads.
func (w *Workload) Capabilities() workload.Capabilities {
	ps := parts
	if w.lazy {
		// The client is built apart: the handshakes fall in the first
		// query, so no part says they are the connect's.
		ps = append([]workload.Part(nil), parts...)
		ps[partConnect].Label = "connect (client built, not yet connected)"
		ps[partFirstQuery].Label = "first query (discovery and connection included)"
		ps[partTLSHandshake].Label = "  TLS handshakes (in the first query)"
		ps[partTLSHandshake].Role = ""
	}
	return workload.Capabilities{Parts: ps, DefaultEvents: w.reps, ReadOnly: true}
}
func (w *Workload) Params() map[string]any {
	phase := PhaseBoth
	if w.reusedOnly {
		phase = PhaseReused
	}
	client := ClientReady
	if w.lazy {
		client = ClientLazy
	}
	return map[string]any{"connect_rows": w.rows, "tls_resumption": w.resumption, "connections": w.reps, "connect_phase": phase, "connect_client": client}
}

// Schema describes the table for reports.
func (w *Workload) Schema() string {
	return fmt.Sprintf("encbench_connect(id INTEGER PRIMARY KEY, v VARCHAR(100)), %d rows; the first query on a new connection and the reused-connection query are both SELECT v FROM encbench_connect WHERE id = <random id> (on MongoDB, documents {_id: \"c<id>\", v} and find_one by _id).", w.rows)
}

func (w *Workload) Prepare(ctx context.Context, env workload.Env) error {
	c, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if docs, ok := c.(engine.Documents); ok {
		return w.prepareDocs(ctx, docs, env)
	}
	suffix, err := workload.StartTables(ctx, env, c, []string{table})
	if err != nil {
		return err
	}
	if err := workload.Own(ctx, c, Name, []string{table}); err != nil {
		return err
	}
	fmt.Fprintf(env.Log, "Creating table '%s' with %d rows...\n", table, w.rows)
	if err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id INTEGER NOT NULL PRIMARY KEY, v VARCHAR(100) NOT NULL) %s", table, suffix)); err != nil {
		return fmt.Errorf("creating %s: %w", table, err)
	}
	const batch = 500
	for lo := 1; lo <= w.rows; lo += batch {
		sql := []byte("INSERT INTO " + table + " (id, v) VALUES ")
		for id := lo; id < lo+batch && id <= w.rows; id++ {
			if id > lo {
				sql = append(sql, ',')
			}
			sql = fmt.Appendf(sql, "(%d, 'row %d of encbench connect')", id, id)
		}
		if err := c.Exec(ctx, string(sql)); err != nil {
			return fmt.Errorf("loading %s: %w", table, err)
		}
	}
	return nil
}

// prepareDocs loads the collection of a document store: _id and v. The
// _id is a string (docID): FerretDB's SQLite backend looks _id up by its
// index only when it is a string or an ObjectID and scans the collection
// for any other type, where mongod indexes every _id.
func (w *Workload) prepareDocs(ctx context.Context, docs engine.Documents, env workload.Env) error {
	if env.TDE {
		return errs.Usage("prepare --tde is for SQL servers; MongoDB encrypts at rest in the server's own configuration")
	}
	if err := workload.CheckPrepareDocs(ctx, docs, []string{table}, env.Force); err != nil {
		return err
	}
	fmt.Fprintf(env.Log, "Creating collection '%s' with %d documents...\n", table, w.rows)
	const batch = 500
	for lo := 1; lo <= w.rows; lo += batch {
		var b []any
		for id := lo; id < lo+batch && id <= w.rows; id++ {
			b = append(b, map[string]any{"_id": docID(nil, id), "v": fmt.Sprintf("row %d of encbench connect", id)})
		}
		if err := docs.InsertMany(ctx, table, b); err != nil {
			return err
		}
	}
	return workload.OwnDocs(ctx, docs, Name, []string{table})
}

func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, []string{table})
}

func (w *Workload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	conn, id := env.Conn, env.ID
	if env.Target.Engine == nil {
		return nil, fmt.Errorf("connect workload has no target to open connections to")
	}
	var lazy engine.LazyConnector
	if w.lazy {
		var ok bool
		if lazy, ok = env.Target.Engine.(engine.LazyConnector); !ok {
			return nil, errs.Usage("--connect-client lazy: the %s driver connects when its client is made, so there is no client to build apart (MongoDB's driver separates them)", env.Target.Engine.Kind())
		}
	}
	probe := &engine.TLSProbe{}
	if w.resumption {
		probe.SessionCache = tls.NewLRUClientSessionCache(4)
	}
	t := env.Target
	t.Probe = probe
	k := &worker{w: w, conn: conn, target: t, probe: probe, tls: t.TLS.Mode != engine.TLSDisable, lazy: lazy,
		pcg: rand.NewPCG(uint64(id)+1, 0x5eed), notes: map[string]int64{}}
	if p, ok := env.Previous.(*worker); ok {
		k.pcg, k.notes = p.pcg, p.notes
	}
	k.rng = rand.New(k.pcg)
	return k, nil
}

type worker struct {
	w      *Workload
	conn   engine.Conn
	target engine.Target
	probe  *engine.TLSProbe
	tls    bool
	// lazy builds each new client without connecting it (nil: connect).
	lazy engine.LazyConnector
	rng  *rand.Rand
	// pcg is rng's state, marked at each event's start for a retry.
	pcg    *rand.PCG
	mark   rand.PCG
	replay bool
	items  [partCount]time.Duration
	notes  map[string]int64
	sql    []byte
	id     []byte
}

// read runs the first (or reused) query on c: by primary key, in SQL or
// as a document lookup.
func (k *worker) read(ctx context.Context, c engine.Conn) (bool, error) {
	if docs, ok := c.(engine.Documents); ok {
		k.id = docIDBytes(k.id, k.rng.IntN(k.w.rows)+1)
		return docs.FindByID(ctx, table, string(k.id))
	}
	rows, err := c.Query(ctx, k.query())
	return len(rows) == 1, err
}

// docID is row n's _id in a document store: "c" and n.
func docID(buf []byte, n int) string { return string(docIDBytes(buf, n)) }

func docIDBytes(buf []byte, n int) []byte {
	return strconv.AppendInt(append(buf[:0], 'c'), int64(n), 10)
}

func (k *worker) query() string {
	k.sql = append(k.sql[:0], "SELECT v FROM "+table+" WHERE id = "...)
	k.sql = strconv.AppendInt(k.sql, int64(k.rng.IntN(k.w.rows)+1), 10)
	return string(k.sql)
}

// Event is one R2 cycle: connect, first query, close; reused query.
func (k *worker) Event(c *workload.Counters) error {
	if k.replay {
		*k.pcg = k.mark
		k.replay = false
	} else {
		k.mark = *k.pcg
	}
	ctx := context.Background()
	if k.w.reusedOnly {
		return k.reusedEvent(ctx, c)
	}
	k.probe.Reset()
	t0 := time.Now()
	var nc engine.Conn
	var err error
	if k.lazy != nil {
		nc, err = k.lazy.NewClient(ctx, k.target)
	} else {
		nc, err = k.target.Engine.Connect(ctx, k.target)
	}
	if err != nil {
		return err
	}
	t1 := time.Now()
	found, err := k.read(ctx, nc)
	t2 := time.Now()
	nc.Close()
	if err != nil {
		return fmt.Errorf("first query on a new connection: %w", err)
	}
	if !found {
		return fmt.Errorf("first query found no row: run prepare for the connect workload (with the same --connect-rows)")
	}
	t3 := time.Now()
	if _, err := k.read(ctx, k.conn); err != nil {
		return fmt.Errorf("query on the reused connection: %w", err)
	}
	t4 := time.Now()
	c.Reads += 2
	// A zero part (no handshake) did not happen in this event.
	k.items = [partCount]time.Duration{partConnect: t1.Sub(t0), partFirstQuery: t2.Sub(t1),
		partConnectFirstQuery: t2.Sub(t0), partReusedQuery: t4.Sub(t3)}
	c.Parts = k.items[:]
	h := k.probe.Last()
	if h.Dials > 1 {
		// A connect that dialled more than one socket: a host list's
		// primary tried before a standby, a host that was down, or a
		// driver's monitor beside its pool (MongoDB's client).
		k.notes["sockets_dialled"] += int64(h.Dials)
		k.notes["connects_with_several_sockets"]++
	}
	if k.tls && h.Handshakes > 0 {
		k.items[partTLSHandshake] = h.HandshakeTime
		k.notes["tls_handshakes"] += int64(h.Handshakes)
		k.notes["tls_resumed"] += int64(h.ResumedN)
		k.notes["tls_hello_retry"] += int64(h.RetriedN)
		if h.Group != 0 {
			k.notes["tls_group "+h.Group.String()] += int64(h.Handshakes)
		}
		k.notes["tls_version "+tls.VersionName(h.Version)] += int64(h.Handshakes)
		k.notes["tls_cipher "+tls.CipherSuiteName(h.Cipher)] += int64(h.Handshakes)
	}
	return nil
}

// reusedEvent is the reused query alone: the only part the event fills.
func (k *worker) reusedEvent(ctx context.Context, c *workload.Counters) error {
	t0 := time.Now()
	found, err := k.read(ctx, k.conn)
	if err != nil {
		return fmt.Errorf("query on the reused connection: %w", err)
	}
	if !found {
		return fmt.Errorf("the query found no row: run prepare for the connect workload (with the same --connect-rows)")
	}
	c.Reads++
	k.items = [partCount]time.Duration{partReusedQuery: time.Since(t0)}
	c.Parts = k.items[:]
	return nil
}

// Abort: the cycle's connections are closed or read-only; nothing is open.
func (k *worker) Abort(retry bool) error {
	k.replay = retry
	return nil
}
func (k *worker) Close() error            { return nil }
func (k *worker) Notes() map[string]int64 { return k.notes }
