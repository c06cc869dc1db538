package oltp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/randgen"
	"github.com/encbench/encbench/internal/workload"
)

// Statement kinds, as oltp_common.lua's stmt_defs.
const (
	stPointSelect = iota
	stSimpleRange
	stSumRange
	stOrderRange
	stDistinctRange
	stIndexUpdate
	stNonIndexUpdate
	stDelete
	stInsert
	stCount
)

var stmtSQL = [stCount]string{
	stPointSelect:    "SELECT c FROM sbtest%d WHERE id=?",
	stSimpleRange:    "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
	stSumRange:       "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
	stOrderRange:     "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	stDistinctRange:  "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	stIndexUpdate:    "UPDATE sbtest%d SET k=k+1 WHERE id=?",
	stNonIndexUpdate: "UPDATE sbtest%d SET c=? WHERE id=?",
	stDelete:         "DELETE FROM sbtest%d WHERE id=?",
	stInsert:         "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
}

// Which statements each script prepares (prepare_statements in its .lua).
var scriptStmts = map[string][]int{
	"oltp_point_select":     {stPointSelect},
	"oltp_read_only":        {stPointSelect, stSimpleRange, stSumRange, stOrderRange, stDistinctRange},
	"oltp_read_write":       {stPointSelect, stSimpleRange, stSumRange, stOrderRange, stDistinctRange, stIndexUpdate, stNonIndexUpdate, stDelete, stInsert},
	"oltp_write_only":       {stIndexUpdate, stNonIndexUpdate, stDelete, stInsert},
	"oltp_update_index":     {stIndexUpdate},
	"oltp_update_non_index": {stNonIndexUpdate},
	"oltp_delete":           {stDelete},
}

type worker struct {
	w       *Workload
	o       Options
	conn    engine.Conn
	src     *randgen.Source
	stmts   [][stCount]engine.Stmt // index 0 is sbtest1
	begin   engine.Stmt
	commit  engine.Stmt
	single  engine.Stmt // select_random_* and oltp_insert
	inserts []engine.Stmt
	args    [4]engine.Arg
	many    []engine.Arg
	cbuf    []byte
	padbuf  []byte
	rlen    float64
	tid     int
	event   func(c *workload.Counters) error
	dialect engine.Dialect
	// replay: the next event repeats the last one's draws (and its
	// oltp_insert id), a retry after a conflict.
	replay   bool
	uniq     uint32
	uniqDrew bool
}

// NewWorker prepares what the script prepares in thread_init.
func (w *Workload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	conn, d, id, threads := env.Conn, env.Dialect, env.ID, env.Threads
	if isEnc(w.name) {
		ed, err := newEncDialect(env.Target)
		if err != nil {
			return nil, err
		}
		ed.Dialect = d
		return w.newEncWorker(ctx, conn, ed, id, threads, env.Previous)
	}
	o := w.opts
	wk := &worker{
		w: w, o: o, conn: conn, dialect: d,
		src:    randgen.New(o.Rand, uint64(id)),
		cbuf:   make([]byte, 0, len(cTemplate)),
		padbuf: make([]byte, 0, len(padTemplate)),
		rlen:   float64(o.TableSize) / float64(threads),
		tid:    id % threads,
	}
	if p, ok := env.Previous.(*worker); ok {
		wk.src = p.src
	}
	if err := w.startServerSession(ctx, conn); err != nil {
		return nil, err
	}
	ps := &engine.Preparer{Ctx: ctx, Conn: conn}
	prep := func(sql string) engine.Stmt { return ps.Prepare("%s", w.serverSQL(sql)) }
	switch w.name {
	case "select_random_points":
		pts := strings.TrimSuffix(strings.Repeat("?, ", o.RandomPoints), ", ")
		wk.single = prep(fmt.Sprintf("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (%s)", pts))
		wk.many = make([]engine.Arg, o.RandomPoints)
		wk.event = wk.randomPoints
	case "select_random_ranges":
		r := strings.TrimSuffix(strings.Repeat("k BETWEEN ? AND ? OR ", o.NumberOfRanges), " OR ")
		wk.single = prep("SELECT count(k) FROM sbtest1 WHERE " + r)
		wk.many = make([]engine.Arg, 2*o.NumberOfRanges)
		wk.event = wk.randomRanges
	case "oltp_insert":
		wk.inserts = make([]engine.Stmt, o.Tables)
		for t := range wk.inserts {
			if d.Name == "pgsql" && o.AutoInc {
				wk.inserts[t] = prep(fmt.Sprintf("INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)", t+1))
			} else {
				wk.inserts[t] = prep(fmt.Sprintf("INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)", t+1))
			}
		}
		wk.event = wk.insertEvent
	default:
		wk.stmts = make([][stCount]engine.Stmt, o.Tables)
		for t := range wk.stmts {
			for _, k := range scriptStmts[w.name] {
				wk.stmts[t][k] = prep(fmt.Sprintf(stmtSQL[k], t+1))
			}
		}
		trx := !o.SkipTrx && (w.name == "oltp_read_only" || w.name == "oltp_read_write" || w.name == "oltp_write_only")
		if trx {
			wk.begin = prep("BEGIN")
			wk.commit = prep("COMMIT")
		}
		wk.event = wk.scriptEvent
	}
	if ps.Err != nil {
		return nil, ps.Err
	}
	return wk, nil
}

func (wk *worker) Event(c *workload.Counters) error {
	if wk.replay {
		wk.src.Rewind()
		wk.replay = false
	} else {
		wk.src.Mark()
		wk.uniqDrew = false
	}
	return wk.event(c)
}

// Abort rolls back whatever the failed event left open.
func (wk *worker) Abort(retry bool) error {
	wk.replay = retry
	return wk.conn.Exec(context.Background(), "ROLLBACK")
}

func (wk *worker) Close() error { return wk.conn.Close() }

func (wk *worker) id() int64 { return int64(wk.src.Default(1, uint32(wk.o.TableSize))) }

func (wk *worker) table() int { return int(wk.src.Uniform(1, uint32(wk.o.Tables))) - 1 }

// scriptEvent is event() of oltp_read_write.lua and its subsets: a missing
// statement means the script does not run that part.
func (wk *worker) scriptEvent(c *workload.Counters) error {
	o := &wk.o
	if wk.begin != nil {
		if err := wk.begin.Exec(nil); err != nil {
			return err
		}
		c.Others++
	}
	if err := wk.execPoint(c); err != nil {
		return err
	}
	if o.RangeSelects && wk.stmts[0][stSimpleRange] != nil {
		for _, k := range [...]struct{ kind, n int }{{stSimpleRange, o.SimpleRanges}, {stSumRange, o.SumRanges}, {stOrderRange, o.OrderRanges}, {stDistinctRange, o.DistinctRanges}} {
			if err := wk.execRange(c, k.kind, k.n); err != nil {
				return err
			}
		}
	}
	if err := wk.execWrites(c); err != nil {
		return err
	}
	if wk.commit != nil {
		if err := wk.commit.Exec(nil); err != nil {
			return err
		}
		c.Others++
	}
	return nil
}

func (wk *worker) execPoint(c *workload.Counters) error {
	if wk.stmts[0][stPointSelect] == nil {
		return nil
	}
	s := wk.stmts[wk.table()][stPointSelect]
	for i := 0; i < wk.o.PointSelects; i++ {
		wk.args[0].Int = wk.id()
		if err := s.Exec(wk.args[:1]); err != nil {
			return err
		}
		c.Reads++
	}
	return nil
}

func (wk *worker) execRange(c *workload.Counters, kind, n int) error {
	s := wk.stmts[wk.table()][kind]
	for i := 0; i < n; i++ {
		id := wk.id()
		wk.args[0].Int, wk.args[1].Int = id, id+int64(wk.o.RangeSize)-1
		if err := s.Exec(wk.args[:2]); err != nil {
			return err
		}
		c.Reads++
	}
	return nil
}

func (wk *worker) execWrites(c *workload.Counters) error {
	o := &wk.o
	if wk.stmts[0][stIndexUpdate] != nil {
		s := wk.stmts[wk.table()][stIndexUpdate]
		for i := 0; i < o.IndexUpdates; i++ {
			wk.args[0].Int = wk.id()
			if err := s.Exec(wk.args[:1]); err != nil {
				return err
			}
			c.Writes++
		}
	}
	if wk.stmts[0][stNonIndexUpdate] != nil {
		s := wk.stmts[wk.table()][stNonIndexUpdate]
		for i := 0; i < o.NonIndexUpdates; i++ {
			wk.cbuf = wk.src.FillTemplate(wk.cbuf, cTemplate)
			wk.args[0] = engine.Arg{Str: wk.cbuf}
			wk.args[1] = engine.Arg{Int: wk.id()}
			err := s.Exec(wk.args[:2])
			wk.args[0].Str = nil
			if err != nil {
				return err
			}
			c.Writes++
		}
	}
	if wk.stmts[0][stDelete] != nil && wk.stmts[0][stInsert] == nil {
		// oltp_delete.lua: one delete on a random table.
		s := wk.stmts[wk.table()][stDelete]
		wk.args[0].Int = wk.id()
		if err := s.Exec(wk.args[:1]); err != nil {
			return err
		}
		c.Writes++
		return nil
	}
	if wk.stmts[0][stInsert] != nil {
		t := wk.table()
		for i := 0; i < o.DeleteInserts; i++ {
			id, k := wk.id(), wk.id()
			wk.args[0] = engine.Arg{Int: id}
			if err := wk.stmts[t][stDelete].Exec(wk.args[:1]); err != nil {
				return err
			}
			c.Writes++
			wk.cbuf = wk.src.FillTemplate(wk.cbuf, cTemplate)
			wk.padbuf = wk.src.FillTemplate(wk.padbuf, padTemplate)
			wk.args[1] = engine.Arg{Int: k}
			wk.args[2] = engine.Arg{Str: wk.cbuf}
			wk.args[3] = engine.Arg{Str: wk.padbuf}
			err := wk.stmts[t][stInsert].Exec(wk.args[:4])
			wk.args[2].Str, wk.args[3].Str = nil, nil
			if err != nil {
				return err
			}
			c.Writes++
		}
	}
	return nil
}

// insertEvent is oltp_insert.lua's event().
func (wk *worker) insertEvent(c *workload.Counters) error {
	o := &wk.o
	s := wk.inserts[wk.table()]
	k := int64(wk.src.Default(1, uint32(o.TableSize)))
	wk.cbuf = wk.src.FillTemplate(wk.cbuf, cTemplate)
	wk.padbuf = wk.src.FillTemplate(wk.padbuf, padTemplate)
	var args []engine.Arg
	if wk.dialect.Name == "pgsql" && o.AutoInc {
		wk.args[0] = engine.Arg{Int: k}
		wk.args[1] = engine.Arg{Str: wk.cbuf}
		wk.args[2] = engine.Arg{Str: wk.padbuf}
		args = wk.args[:3]
	} else {
		var id int64 // 0 lets AUTO_INCREMENT pick
		if !o.AutoInc {
			if !wk.uniqDrew {
				wk.uniq, wk.uniqDrew = wk.w.unique.next(), true
			}
			id = int64(wk.uniq) - 2147483648
		}
		wk.args[0] = engine.Arg{Int: id}
		wk.args[1] = engine.Arg{Int: k}
		wk.args[2] = engine.Arg{Str: wk.cbuf}
		wk.args[3] = engine.Arg{Str: wk.padbuf}
		args = wk.args[:4]
	}
	err := s.Exec(args)
	for i := range wk.args {
		wk.args[i].Str = nil
	}
	if err != nil {
		return err
	}
	c.Writes++
	return nil
}

// randomPoints is select_random_points.lua: each thread draws from its own
// slice of the key space.
func (wk *worker) randomPoints(c *workload.Counters) error {
	rmin := wk.rlen * float64(wk.tid)
	for i := range wk.many {
		wk.many[i].Int = int64(wk.src.Default(uint32(rmin), uint32(rmin+wk.rlen)))
	}
	if err := wk.single.Exec(wk.many); err != nil {
		return err
	}
	c.Reads++
	return nil
}

func (wk *worker) randomRanges(c *workload.Counters) error {
	rmin := wk.rlen * float64(wk.tid)
	for i := 0; i < len(wk.many); i += 2 {
		v := int64(wk.src.Default(uint32(rmin), uint32(rmin+wk.rlen)))
		wk.many[i].Int, wk.many[i+1].Int = v, v+int64(wk.o.Delta)
	}
	if err := wk.single.Exec(wk.many); err != nil {
		return err
	}
	c.Reads++
	return nil
}

// uniqueSeq is sysbench.rand.unique(): a permutation of uint32 so client
// generated ids never repeat (Preshing's quadratic-residue sequence).
type uniqueSeq struct {
	index  atomic.Uint32
	offset uint32
}

const uniquePrime = 4294967291

func permute(x uint32) uint32 {
	if x >= uniquePrime {
		return x
	}
	r := uint32(uint64(x) * uint64(x) % uniquePrime)
	if x <= uniquePrime/2 {
		return r
	}
	return uniquePrime - r
}

func newUniqueSeq(seedIndex, seedOffset uint32) *uniqueSeq {
	u := &uniqueSeq{offset: permute(permute(seedOffset) + 0x46790905)}
	u.index.Store(permute(permute(seedIndex) + 0x682f0161))
	return u
}

func (u *uniqueSeq) next() uint32 {
	i := u.index.Add(1) - 1
	return permute((permute(i) + u.offset) ^ 0x5bf03635)
}
