package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
	"github.com/encbench/encbench/internal/workload/script/lang"
)

// worker is one client: its connection, its statements prepared once
// (pgbench -M prepared), its variables and its generators.
type worker struct {
	set  *scriptSet
	conn engine.Conn
	// stmts[s][c][q] is script s's command c's query q, prepared.
	stmts [][][]engine.Stmt
	// gsetSlots[s][c] maps a \gset or \aset command's result columns to
	// the variables they set (-1: a column no script reads).
	gsetSlots [][][]int
	vars      []lang.Value
	// texts hold each variable's \gset bytes, reused.
	texts    [][]byte
	env      lang.Env
	rng      lang.PRNG
	saved    lang.PRNG
	choose   lang.PRNG
	args     []engine.Arg
	argBufs  [][]byte
	parts    []time.Duration
	cur      int
	retry    bool
	rollback engine.Stmt
	// rowSlots and rows: the \gset in progress (onRow is bound once).
	rowSlots []int
	rows     int
	onRow    func([][]byte) error
	// enc is the column layer's Fields (nil: no column is encrypted);
	// paramFields and resultFields hold them per statement, and
	// rowFields is the statement in progress's.
	enc          *fields
	paramFields  [][][][]*colenc.Field
	resultFields [][][][]*colenc.Field
	rowFields    []*colenc.Field
	onDecrypt    func([][]byte) error
	keys         colenc.Paths
	// epoch anchors the statements' timings: time.Since(epoch) reads the
	// monotonic clock alone, where time.Now also reads the wall clock (a
	// second vDSO call, twice a statement).
	epoch time.Time
}

var emptyBytes = []byte{}

// NewWorker prepares every statement of every script on the worker's
// connection and checks, now that the \gset columns are known, that no
// variable is read before it is set.
func (w *Workload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	if _, ok := env.Conn.(engine.Documents); ok {
		return nil, errs.Usage("%s runs SQL scripts on PostgreSQL, MySQL or MariaDB, not on a document store", w.name)
	}
	if len(w.sources) == 0 {
		return nil, errNoScript
	}
	set, err := w.scripts(env.Dialect.Name == "pgsql")
	if err != nil {
		return nil, err
	}
	k := &worker{set: set, conn: env.Conn, vars: make([]lang.Value, set.syms.Len()), texts: make([][]byte, set.syms.Len()),
		parts: make([]time.Duration, len(set.parts)), epoch: time.Now()}
	k.onRow, k.onDecrypt = k.storeRow, k.decryptRow
	if w.enc != nil {
		if k.enc, err = w.openFields(); err != nil {
			return nil, err
		}
		k.keys = w.o.Keys
	}
	k.env = lang.Env{Vars: k.vars, Rand: &k.rng, Debug: os.Stderr, Names: &set.syms}
	maxParams := 0
	for si, s := range set.scripts {
		var cmds [][]engine.Stmt
		var slots [][]int
		var pfs, rfs [][][]*colenc.Field
		for ci, c := range s.Commands {
			var qs []engine.Stmt
			var pf, rf [][]*colenc.Field
			for qi, q := range c.Queries {
				st, err := env.Conn.Prepare(ctx, q.SQL)
				if err != nil {
					return nil, errs.Usage("%s:%d: the server refused the statement (are its tables there? encbench prepare pgbench --scale N makes pgbench's): %v", s.Name, q.At.Line, err)
				}
				qs = append(qs, st)
				maxParams = max(maxParams, len(q.Params))
				var p, r []*colenc.Field
				if k.enc != nil {
					p, r = k.enc.queryFields(set.enc[si][ci][qi], st)
				}
				pf, rf = append(pf, p), append(rf, r)
			}
			pfs, rfs = append(pfs, pf), append(rfs, rf)
			cmds = append(cmds, qs)
			slots = append(slots, k.columnSlots(c, qs))
		}
		k.stmts = append(k.stmts, cmds)
		k.paramFields, k.resultFields = append(k.paramFields, pfs), append(k.resultFields, rfs)
		k.gsetSlots = append(k.gsetSlots, slots)
		if err := set.checkVariables(s, func(cmd int) []string { return k.gsetNames(si, cmd) }); err != nil {
			return nil, err
		}
	}
	k.args, k.argBufs = make([]engine.Arg, maxParams), make([][]byte, maxParams)
	if k.rollback, err = env.Conn.Prepare(ctx, "ROLLBACK"); err != nil {
		return nil, fmt.Errorf("preparing ROLLBACK: %w", err)
	}
	if err := k.preset(ctx, w, env); err != nil {
		return nil, err
	}
	return k, nil
}

// columnSlots maps a \gset or \aset command's result columns to variable
// slots; nil for other commands.
func (k *worker) columnSlots(c lang.Command, qs []engine.Stmt) []int {
	if !c.Gset {
		return nil
	}
	var slots []int
	for i, st := range qs {
		if !c.Aset && i < len(qs)-1 {
			continue
		}
		d, ok := st.(engine.Described)
		if !ok {
			continue
		}
		for _, col := range d.Columns() {
			slot, ok := k.set.syms.Lookup(c.Prefix + col)
			if !ok {
				slot = -1
			}
			slots = append(slots, slot)
		}
		if c.Aset {
			slots = append(slots, -2) // a statement's columns end
		}
	}
	return slots
}

// gsetNames are the variables command cmd of script s sets.
func (k *worker) gsetNames(s, cmd int) []string {
	var out []string
	for _, slot := range k.gsetSlots[s][cmd] {
		if slot >= 0 {
			out = append(out, k.set.syms.Name(slot))
		}
	}
	return out
}

// preset sets pgbench's automatic variables and --define's: client_id,
// scale (read from pgbench_branches for a built-in script, as pgbench
// does), the seeds.
func (k *worker) preset(ctx context.Context, w *Workload, env workload.WorkerEnv) error {
	scale := int64(w.o.Scale)
	for _, s := range w.sources {
		if s.builtin == "" {
			continue
		}
		rows, err := env.Conn.Query(ctx, "SELECT count(*) FROM pgbench_branches")
		if err != nil || len(rows) != 1 {
			return errs.Usage("pgbench's built-in scripts read the scale from pgbench_branches: %v (run encbench prepare pgbench --scale N first)", err)
		}
		if scale, err = strconv.ParseInt(rows[0][0], 10, 64); err != nil || scale < 1 {
			return errs.Usage("pgbench_branches has %s rows: run encbench prepare pgbench --scale N", rows[0][0])
		}
		break
	}
	set := func(name string, v lang.Value) {
		if slot, ok := k.set.syms.Lookup(name); ok {
			k.vars[slot] = v
		}
	}
	seed := uint64(w.seed)
	set("scale", lang.IntValue(scale))
	set("client_id", lang.IntValue(int64(env.ID)))
	set("random_seed", lang.IntValue(w.seed))
	var base lang.PRNG
	base.Seed(seed)
	set("default_seed", lang.IntValue(int64(base.Uint64())))
	for n, v := range w.defines {
		set(n, lang.Value{Kind: lang.Text, S: []byte(v)})
	}
	k.rng.Seed(seed + uint64(env.ID)*0x9E3779B97F4A7C15 + 1)
	k.choose.Seed(seed ^ uint64(env.ID)*0xBF58476D1CE4E5B9 ^ 0x94D049BB133111EB)
	return nil
}

// pick chooses a script by weight (pgbench's chooseScript).
func (k *worker) pick() int {
	if len(k.set.scripts) == 1 {
		return 0
	}
	r := int(k.choose.Range(0, uint64(k.set.total-1)))
	for i, wt := range k.set.weights {
		if r -= wt; r < 0 {
			return i
		}
	}
	return len(k.set.weights) - 1
}

// Event runs one script from its first command to its last: one
// transaction as pgbench counts them. A retry runs the same script with
// the random state it started with.
func (k *worker) Event(c *workload.Counters) error {
	if k.retry {
		k.rng = k.saved
	} else {
		k.saved = k.rng
		k.cur = k.pick()
	}
	k.retry = false
	clear(k.parts)
	c.Parts = k.parts
	si := k.cur
	s := k.set.scripts[si]
	var start time.Duration
	if k.set.scriptPart[si] >= 0 {
		start = time.Since(k.epoch)
	}
	cmds := s.Commands
	for pc := 0; pc < len(cmds); {
		cmd := &cmds[pc]
		switch cmd.Kind {
		case lang.CmdSQL:
			if err := k.sql(c, si, pc, cmd); err != nil {
				return err
			}
			pc++
		case lang.CmdSet:
			v, err := cmd.Expr.Eval(&k.env)
			if err != nil {
				return evalFailed(s.Name, cmd, "\\set "+k.set.syms.Name(cmd.Var), err)
			}
			k.vars[cmd.Var] = v
			pc++
		case lang.CmdSleep:
			v, err := cmd.Sleep.Eval(&k.env)
			n, ierr := lang.AsInt(v)
			if err != nil || ierr != nil {
				return evalFailed(s.Name, cmd, "\\sleep", errors.Join(err, ierr))
			}
			time.Sleep(time.Duration(n) * cmd.Unit)
			pc++
		case lang.CmdIf:
			for {
				v, err := cmd.Expr.Eval(&k.env)
				if err != nil {
					return evalFailed(s.Name, cmd, "\\if", err)
				}
				if lang.Truth(v) {
					pc++
					break
				}
				if cmds[cmd.Next].Kind == lang.CmdElif {
					pc = cmd.Next
					cmd = &cmds[pc]
					continue
				}
				pc = cmd.Next + 1
				break
			}
		case lang.CmdElif, lang.CmdElse:
			pc = cmd.End + 1 // the branch before it ran
		default: // \endif
			pc++
		}
	}
	if sp := k.set.scriptPart[si]; sp >= 0 {
		k.parts[sp] = time.Since(k.epoch) - start
	}
	return nil
}

// evalFailed names the script, line and column of an expression that
// failed, and the command.
func evalFailed(script string, cmd *lang.Command, what string, err error) error {
	var e *lang.EvalError
	if errors.As(err, &e) {
		return fmt.Errorf("%s:%s: %s: %w", script, e.At, what, e.Err)
	}
	return fmt.Errorf("%s:%s: %s: %w", script, cmd.At, what, err)
}

// sql runs an SQL command's statements, timing each.
func (k *worker) sql(c *workload.Counters, si, ci int, cmd *lang.Command) error {
	s := k.set.scripts[si]
	slots := k.gsetSlots[si][ci]
	for qi := range cmd.Queries {
		q := &cmd.Queries[qi]
		var pf []*colenc.Field
		if k.enc != nil {
			pf, k.rowFields = k.paramFields[si][ci][qi], k.resultFields[si][ci][qi]
		}
		args, err := k.bind(q, pf)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", s.Name, q.At.Line, err)
		}
		st := k.stmts[si][ci][qi]
		t0 := time.Since(k.epoch)
		last := qi == len(cmd.Queries)-1
		switch {
		case cmd.Aset:
			k.rowSlots, slots = nextSlots(slots)
			err = st.Query(args, k.onRow)
		case cmd.Gset && last:
			k.rowSlots, k.rows = slots, 0
			err = st.Query(args, k.onRow)
			if err == nil && k.rows != 1 {
				err = fmt.Errorf("\\gset expects one row, got %d", k.rows)
			}
		case k.rowFields != nil:
			err = st.Query(args, k.onDecrypt)
		default:
			err = st.Exec(args)
		}
		k.parts[k.set.queryPart[si][ci][qi]] += time.Since(k.epoch) - t0
		switch q.Kind {
		case lang.Read:
			c.Reads++
		case lang.Write:
			c.Writes++
		default:
			c.Others++
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", s.Name, q.At.Line, err)
		}
	}
	return nil
}

// nextSlots splits an \aset command's slots at its statement boundary.
func nextSlots(slots []int) (this, rest []int) {
	for i, s := range slots {
		if s == -2 {
			return slots[:i], slots[i+1:]
		}
	}
	return slots, nil
}

// bind turns the statement's variables into parameters: integers as
// integers, text as it came, doubles and booleans in pgbench's text
// form, NULL as NULL.
func (k *worker) bind(q *lang.Query, pf []*colenc.Field) ([]engine.Arg, error) {
	args := k.args[:len(q.Params)]
	for i, p := range q.Params {
		v := k.vars[p.Slot]
		if pf != nil && pf[i] != nil && v.Kind != lang.Null && v.Kind != lang.Unset {
			ct, err := pf[i].Append(k.argBufs[i][:0], nil, plaintext(v))
			if err != nil {
				return nil, fmt.Errorf("encrypting :%s: %w", k.set.syms.Name(p.Slot), err)
			}
			k.argBufs[i] = ct
			args[i] = engine.Arg{Str: ct}
			continue
		}
		switch v.Kind {
		case lang.Unset:
			return nil, fmt.Errorf("undefined variable :%s", k.set.syms.Name(p.Slot))
		case lang.Null:
			args[i] = engine.Arg{Null: true}
		case lang.Int:
			args[i] = engine.Arg{Int: v.I}
		case lang.Text:
			if v.S == nil {
				v.S = emptyBytes
			}
			args[i] = engine.Arg{Str: v.S}
		default:
			k.argBufs[i] = v.Append(k.argBufs[i][:0])
			args[i] = engine.Arg{Str: k.argBufs[i]}
		}
	}
	return args, nil
}

// storeRow keeps a row's values in the variables its columns name (the
// last row wins for \aset).
func (k *worker) storeRow(values [][]byte) error {
	k.rows++
	for i, slot := range k.rowSlots {
		if slot < 0 || i >= len(values) {
			continue
		}
		if values[i] == nil {
			k.vars[slot] = lang.NullValue()
			continue
		}
		if i < len(k.rowFields) && k.rowFields[i] != nil {
			v, err := k.rowFields[i].Decrypt(nil, values[i])
			if err != nil {
				return err
			}
			k.vars[slot] = decrypted(v)
			continue
		}
		k.texts[slot] = append(k.texts[slot][:0], values[i]...)
		k.vars[slot] = lang.Value{Kind: lang.Text, S: k.texts[slot]}
	}
	return nil
}

// decryptRow decrypts a row's encrypted values, as a client that reads
// them must (the plaintexts are then dropped, as the row is).
func (k *worker) decryptRow(values [][]byte) error {
	for i, f := range k.rowFields {
		if f != nil && i < len(values) && values[i] != nil {
			if _, err := f.Decrypt(nil, values[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Abort rolls back what the failed script left open; with retry the next
// Event runs the same script with the same draws (pgbench --max-tries).
func (k *worker) Abort(retry bool) error {
	k.retry = retry
	return k.rollback.Exec(nil)
}

// Close counts the rnd key's nonces this worker drew (a keyset warns as
// it nears its bound) and closes the connection.
func (k *worker) Close() error {
	if k.enc != nil {
		if err := k.enc.cipher.RecordRndUsesAndWarn(k.keys, nil); err != nil {
			_ = k.conn.Close()
			return err
		}
	}
	return k.conn.Close()
}
