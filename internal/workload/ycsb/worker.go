package ycsb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

const valueChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// fill writes n random printable bytes into buf (YCSB's RandomByteIterator
// also produces printable text).
func fill(buf []byte, r *rand.Rand, n int) []byte {
	buf = buf[:0]
	for i := 0; i < n; i++ {
		buf = append(buf, valueChars[r.IntN(len(valueChars))])
	}
	return buf
}

// loader inserts records in batches: multi-row INSERTs on SQL servers,
// InsertMany on document stores.
type loader struct {
	w     *Workload
	c     engine.Conn
	docs  engine.Documents
	r     *rand.Rand
	sql   strings.Builder
	rows  int
	batch []any
	key   []byte
	val   []byte
}

const loadBatch = 100

func newLoader(w *Workload, c engine.Conn, id int64) *loader {
	l := &loader{w: w, c: c, r: rand.New(rand.NewPCG(uint64(id)+7, 0x9c5b))}
	l.docs, _ = c.(engine.Documents)
	return l
}

func (l *loader) add(ctx context.Context, n int64) error {
	l.key = l.w.key(l.key, n)
	if l.docs != nil {
		doc := map[string]any{"_id": string(l.key)}
		for i := 0; i < l.w.o.FieldCount; i++ {
			l.val = fill(l.val, l.r, l.w.o.FieldLength)
			doc[l.w.field(i)] = string(l.val)
		}
		l.batch = append(l.batch, doc)
		if len(l.batch) >= loadBatch {
			return l.flush(ctx)
		}
		return nil
	}
	if l.rows == 0 {
		l.sql.Reset()
		l.sql.WriteString("INSERT INTO " + l.w.o.Table + " VALUES ")
	} else {
		l.sql.WriteByte(',')
	}
	// Keys and values are letters and digits only: safe as literals.
	l.sql.WriteString("('" + string(l.key) + "'")
	for i := 0; i < l.w.o.FieldCount; i++ {
		l.val = fill(l.val, l.r, l.w.o.FieldLength)
		l.sql.WriteString(",'")
		l.sql.Write(l.val)
		l.sql.WriteByte('\'')
	}
	l.sql.WriteByte(')')
	l.rows++
	if l.rows >= loadBatch {
		return l.flush(ctx)
	}
	return nil
}

func (l *loader) flush(ctx context.Context) error {
	if l.docs != nil {
		if len(l.batch) == 0 {
			return nil
		}
		err := l.docs.InsertMany(ctx, l.w.o.Table, l.batch)
		l.batch = l.batch[:0]
		return err
	}
	if l.rows == 0 {
		return nil
	}
	l.rows = 0
	return l.c.Exec(ctx, l.sql.String())
}

// Operation indexes, in itemNames order.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opRMW
)

type worker struct {
	w    *Workload
	docs engine.Documents
	r    *rand.Rand
	// pcg is r's state. mark is taken after an operation's key is drawn:
	// a retry repeats the operation on the same key with the same values.
	pcg     *rand.PCG
	mark    rand.PCG
	op      int
	replay  bool
	keys    chooser
	latest  bool // keys come from recent inserts: no re-draw
	scanLen chooser
	cum     [5]float64
	read    []engine.Stmt // one per field, or one SELECT * when reading all fields
	update  []engine.Stmt // one per field, or one for all fields
	insert  engine.Stmt
	scan    engine.Stmt
	key     []byte
	vals    [][]byte
	args    []engine.Arg
	items   [5]time.Duration
	ctx     context.Context
}

func (w *Workload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	conn, id := env.Conn, env.ID
	if err := w.countRecords(ctx, conn); err != nil {
		return nil, err
	}
	o := w.o
	k := &worker{w: w, pcg: rand.NewPCG(uint64(id)+1, 0x9c5b0001), ctx: context.Background()}
	if p, ok := env.Previous.(*worker); ok {
		k.pcg = p.pcg
	}
	k.r = rand.New(k.pcg)
	k.docs, _ = conn.(engine.Documents)
	total := o.Read + o.Update + o.Insert + o.Scan + o.RMW
	acc := 0.0
	for i, p := range []float64{o.Read, o.Update, o.Insert, o.Scan, o.RMW} {
		acc += p / total
		k.cum[i] = acc
	}
	switch o.Distribution {
	case "uniform":
		k.keys = uniform{0, o.RecordCount - 1}
	case "latest":
		k.keys, k.latest = latest{c: &w.inserts, z: newZipfian(0, o.RecordCount-1, zipfianConstant, 0)}, true
	default:
		expectedNew := int64(float64(o.OperationCount) * o.Insert / total * 2)
		k.keys = newScrambledZipfian(0, o.RecordCount+expectedNew-1)
	}
	if o.ScanLengthDist == "zipfian" {
		k.scanLen = newZipfian(1, int64(o.MaxScanLength), zipfianConstant, 0)
	} else {
		k.scanLen = uniform{1, int64(o.MaxScanLength)}
	}
	k.vals = make([][]byte, o.FieldCount)
	k.args = make([]engine.Arg, 0, o.FieldCount+2)
	if k.docs != nil {
		return k, nil
	}
	return k, k.prepare(ctx, conn)
}

func (k *worker) prepare(ctx context.Context, c engine.Conn) error {
	o, t := k.w.o, k.w.o.Table
	var fields []string
	for i := 0; i < o.FieldCount; i++ {
		fields = append(fields, k.w.field(i))
	}
	prep := func(sql string) (engine.Stmt, error) { return c.Prepare(ctx, sql) }
	var err error
	if o.ReadAllFields {
		st, err := prep("SELECT * FROM " + t + " WHERE YCSB_KEY = ?")
		if err != nil {
			return err
		}
		k.read = []engine.Stmt{st}
	} else {
		for _, f := range fields {
			st, err := prep("SELECT " + f + " FROM " + t + " WHERE YCSB_KEY = ?")
			if err != nil {
				return err
			}
			k.read = append(k.read, st)
		}
	}
	if o.WriteAllFields {
		st, err := prep("UPDATE " + t + " SET " + strings.Join(fields, " = ?, ") + " = ? WHERE YCSB_KEY = ?")
		if err != nil {
			return err
		}
		k.update = []engine.Stmt{st}
	} else {
		for _, f := range fields {
			st, err := prep("UPDATE " + t + " SET " + f + " = ? WHERE YCSB_KEY = ?")
			if err != nil {
				return err
			}
			k.update = append(k.update, st)
		}
	}
	if k.insert, err = prep("INSERT INTO " + t + " (YCSB_KEY, " + strings.Join(fields, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(fields)) + ")"); err != nil {
		return err
	}
	k.scan, err = prep("SELECT * FROM " + t + " WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?")
	return err
}

// nextKey is CoreWorkload.nextKeynum: a key that has been inserted.
func (k *worker) nextKey() {
	n := k.keys.next(k.r)
	for !k.latest && n > k.w.inserts.last() {
		n = k.keys.next(k.r)
	}
	k.key = k.w.key(k.key, n)
}

// draw picks the next operation and its key.
func (k *worker) draw() {
	u := k.r.Float64()
	k.op = opRMW
	for i, p := range k.cum {
		if u < p {
			k.op = i
			break
		}
	}
	if k.op == opInsert {
		k.key = k.w.key(k.key, k.w.inserts.take())
	} else {
		k.nextKey()
	}
	k.mark = *k.pcg
}

func (k *worker) Event(c *workload.Counters) error {
	if k.replay {
		*k.pcg = k.mark
		k.replay = false
	} else {
		k.draw()
	}
	op := k.op
	start := time.Now()
	var err error
	switch op {
	case opRead:
		err = k.doRead()
		c.Reads++
	case opUpdate:
		err = k.doUpdate()
		c.Writes++
	case opInsert:
		err = k.doInsert()
		c.Writes++
	case opScan:
		err = k.doScan(int(k.scanLen.next(k.r)))
		c.Reads++
	case opRMW:
		if err = k.doRead(); err == nil {
			err = k.doUpdate()
		}
		c.Reads++
		c.Writes++
	}
	if err != nil {
		return fmt.Errorf("YCSB %s: %w", strings.ToLower(itemNames[op]), err)
	}
	k.items = [5]time.Duration{}
	k.items[op] = max(time.Since(start), 1)
	c.Parts = k.items[:]
	return nil
}

func (k *worker) doRead() error {
	if k.docs != nil {
		_, err := k.docs.FindByID(k.ctx, k.w.o.Table, string(k.key))
		return err
	}
	st := k.read[0]
	if len(k.read) > 1 {
		st = k.read[k.r.IntN(len(k.read))]
	}
	k.args = append(k.args[:0], engine.Arg{Str: k.key})
	return st.Exec(k.args)
}

func (k *worker) doUpdate() error {
	o := k.w.o
	field := k.r.IntN(o.FieldCount)
	if k.docs != nil {
		set := map[string]any{}
		if o.WriteAllFields {
			for i := 0; i < o.FieldCount; i++ {
				set[k.w.field(i)] = string(fill(nil, k.r, o.FieldLength))
			}
		} else {
			set[k.w.field(field)] = string(fill(nil, k.r, o.FieldLength))
		}
		return k.docs.UpdateByID(k.ctx, o.Table, string(k.key), set)
	}
	k.args = k.args[:0]
	st := k.update[0]
	if o.WriteAllFields {
		for i := range k.vals {
			k.vals[i] = fill(k.vals[i], k.r, o.FieldLength)
			k.args = append(k.args, engine.Arg{Str: k.vals[i]})
		}
	} else {
		st = k.update[field]
		k.vals[0] = fill(k.vals[0], k.r, o.FieldLength)
		k.args = append(k.args, engine.Arg{Str: k.vals[0]})
	}
	k.args = append(k.args, engine.Arg{Str: k.key})
	return st.Exec(k.args)
}

func (k *worker) doInsert() error {
	o := k.w.o
	if k.docs != nil {
		doc := map[string]any{"_id": string(k.key)}
		for i := 0; i < o.FieldCount; i++ {
			doc[k.w.field(i)] = string(fill(nil, k.r, o.FieldLength))
		}
		return k.docs.InsertOne(k.ctx, o.Table, doc)
	}
	k.args = append(k.args[:0], engine.Arg{Str: k.key})
	for i := range k.vals {
		k.vals[i] = fill(k.vals[i], k.r, o.FieldLength)
		k.args = append(k.args, engine.Arg{Str: k.vals[i]})
	}
	return k.insert.Exec(k.args)
}

func (k *worker) doScan(n int) error {
	if k.docs != nil {
		_, err := k.docs.ScanFrom(k.ctx, k.w.o.Table, string(k.key), n)
		return err
	}
	k.args = append(k.args[:0], engine.Arg{Str: k.key}, engine.Arg{Int: int64(n)})
	return k.scan.Exec(k.args)
}

// Abort: a YCSB operation is a single statement, so nothing is left open.
func (k *worker) Abort(retry bool) error {
	k.replay = retry
	return nil
}
func (k *worker) Close() error { return nil }
