package oltp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/randgen"
	"github.com/encbench/encbench/internal/workload"
)

// encTable is one table's statements and encoder for an enc worker.
type encTable struct {
	enc *rowEncoder
	// read is the workload's query; its shape depends on where the
	// predicate runs (see encSpec.mode).
	read engine.Stmt
	// sumRun is an ashe range sum's first query: the sum, the row count
	// and the smallest and largest identifier (or their OR, runIsIDs),
	// which settle the sum in one aggregate when the identifiers form one
	// run (rows as loaded); read (the sum and every identifier) runs only
	// when they do not, and alone for the next scatteredSkip sums of the
	// table after a miss.
	sumRun    engine.Stmt
	scattered int
	// runIsIDs: sumRun returns the sum, the row count and the OR of the
	// identifiers, which is below freshAsheFrom only when every row in
	// the range is as prepare loaded it, with its id as its identifier.
	runIsIDs                     bool
	lockK, setK, incK, setC, del engine.Stmt
	insert                       engine.Stmt
	// sumK reads a k that read returned for a client-side sum, whole (an
	// ore k's MAC is checked).
	sumK func(row, v []byte) (int64, error)
	// byValue: read returns (k, count) per distinct k (--k-sum-by-value).
	byValue bool
	// deleted are ids this worker deleted here and will insert again.
	deleted []int64
}

type encWorker struct {
	w       *Workload
	o       Options
	spec    encSpec
	conn    engine.Conn
	src     *randgen.Source
	tables  []encTable
	begin   engine.Stmt
	commit  engine.Stmt
	mode    predicateMode
	args    []engine.Arg
	cbuf    []byte
	padbuf  []byte
	tid     int
	threads int
	// col is the column the workload's predicate is on (id or k).
	col   int
	event func(c *workload.Counters, tb *encTable) error
	// asheIDs are fresh identifiers for the ashe k of rows it inserts;
	// asheRuns and asheList are a range sum's scratch space.
	asheIDs  asheIDs
	asheRuns []colenc.IDRange
	asheList []uint64
	// replay: the next event repeats the last one's draws (a retry).
	replay bool
	// cipher is the data set's (nil for plaintext): Close records its
	// rnd key's uses.
	cipher *colenc.Cipher
}

// rowKeyExpr selects what identifies a row without decryption.
func rowKeyExpr(e encSpec, d encDialect) string {
	if e[colID] == colenc.Ore {
		return d.Substring("id", colenc.OreIdentityFrom+1, colenc.OreIdentityLen)
	}
	return "id"
}

func (w *Workload) newEncWorker(ctx context.Context, conn engine.Conn, d encDialect, id, threads int, prev workload.Worker) (workload.Worker, error) {
	if err := w.validateEnc(d); err != nil {
		return nil, err
	}
	cipher, err := w.dataCipher(ctx, conn)
	if err != nil {
		return nil, err
	}
	e := w.enc.spec
	wk := &encWorker{w: w, o: w.opts, spec: e, conn: conn, src: randgen.New(w.opts.Rand, uint64(id)),
		tid: id % threads, threads: threads,
		cbuf: make([]byte, 0, len(cTemplate)), padbuf: make([]byte, 0, len(padTemplate)), asheIDs: asheIDs{conn: conn, ledger: colenc.LedgerFor(w.enc.keys)}}
	if cipher != nil {
		wk.asheIDs.dataSet, wk.cipher = cipher.DataSet(), cipher
	}
	p, carry := prev.(*encWorker)
	if carry {
		wk.src = p.src
	}
	ps := &engine.Preparer{Ctx: ctx, Conn: conn}
	// Every variant alike, plain included, so only encryption differs.
	if err := engine.SetSession(ctx, conn, d.BytesParams, "to take parameters as bytes"); err != nil {
		return nil, err
	}
	key := rowKeyExpr(e, d)
	rng := w.name == "enc_range_sum" || w.name == "enc_range_sum_k"
	col := colID
	if strings.HasSuffix(w.name, "_k") {
		col = colK
	}
	wk.mode, wk.col = e.mode(col, rng, d.OreType), col
	if rng && (e[colK] == colenc.Ashe || w.opts.KSumCopy) {
		// Once per session: sums may list their identifiers (ListAgg).
		if err := engine.SetSession(ctx, conn, d.ListAggSetup, "for identifier lists"); err != nil {
			return nil, err
		}
	}
	switch w.name {
	case "enc_point_select":
		wk.event = wk.pointByID
	case "enc_point_select_k":
		wk.event = wk.pointByK
	case "enc_range_sum", "enc_range_sum_k":
		wk.event = wk.rangeSum
	default:
		wk.event = wk.writeMix
		if e[colK] == colenc.Ashe || w.opts.KSumCopy {
			if err := wk.asheIDs.check(ctx); err != nil {
				return nil, err
			}
		}
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", w.opts.RangeSize), ", ")
	for t := 1; t <= w.opts.Tables; t++ {
		enc, encErr := newRowEncoder(e, cipher, t, w.copies())
		if encErr != nil {
			return nil, encErr
		}
		tb := encTable{enc: enc, sumK: func(row, v []byte) (int64, error) { return enc.intOf(colK, row, v) }}
		wk.tableStatements(ps, &tb, tableName(t), key, in, d)
		if carry {
			// Rows the lost connection's worker deleted are still to put back.
			tb.deleted = p.tables[t-1].deleted
		}
		wk.tables = append(wk.tables, tb)
	}
	// k=k+1 on a column the server cannot add to is a locked read-modify-write.
	if w.name == "enc_write_mix" && e[colK] != "" && e[colK] != colenc.Ashe {
		wk.begin, wk.commit = ps.Prepare("%s", "BEGIN"), ps.Prepare("%s", "COMMIT")
	}
	if ps.Err != nil {
		return nil, ps.Err
	}
	wk.args = make([]engine.Arg, 0, max(4, w.opts.RangeSize))
	return wk, nil
}

// tableStatements prepares the workload's statements on one table (key:
// what identifies a row without decryption; in: a range's IN list).
func (wk *encWorker) tableStatements(ps *engine.Preparer, tb *encTable, name, key, in string, d encDialect) {
	switch wk.w.name {
	case "enc_point_select":
		tb.read = ps.Prepare(map[predicateMode]string{
			onServer: "SELECT c FROM %[1]s WHERE id=?",
			inClient: "SELECT id, c FROM %[1]s",
		}[wk.mode], name)
	case "enc_point_select_k":
		tb.read = ps.Prepare(map[predicateMode]string{
			onServer: "SELECT %[2]s, c FROM %[1]s WHERE k=?",
			inClient: "SELECT %[2]s, k, c FROM %[1]s",
		}[wk.mode], name, key)
	case "enc_range_sum", "enc_range_sum_k":
		wk.rangeStatements(ps, tb, name, key, in, d)
	case "enc_write_mix":
		wk.writeStatements(ps, tb, name)
	}
}

// rangeStatements prepares a range sum's read: the server's SUM, ashe
// sums with their identifiers, sums by value, or the rows for the client.
func (wk *encWorker) rangeStatements(ps *engine.Preparer, tb *encTable, name, key, in string, d encDialect) {
	w, e, col := wk.w, wk.spec, wk.col
	pred := map[predicateMode]string{onServer: " WHERE %[3]s BETWEEN ? AND ?", inList: " WHERE %[3]s IN (%[4]s)", inClient: ""}[wk.mode]
	sel := "SELECT %[2]s, k, id FROM %[1]s"
	from := pred
	switch {
	case e[colK] == "" && wk.mode != inClient:
		sel = "SELECT SUM(k) FROM %[1]s"
	case e[colK] == colenc.Ashe || w.opts.KSumCopy:
		// One scan: the sum and the summed values' identifiers,
		// which the client sorts into runs of consecutive ones.
		id, v := asheIDColumn, "k"
		if w.opts.KSumCopy {
			id, v = kSumIDColumn, kSumColumn
		}
		sel = "SELECT SUM(" + v + "), " + d.ListAgg(id) + ", COUNT(*) FROM %[1]s"
		// Loaded rows' identifiers follow id (an ashe k) or an ore
		// k (its copy): a range on that column is one run of them.
		switch {
		case e[colK] == colenc.Ashe && col == colID:
			tb.sumRun = ps.Prepare("SELECT SUM("+v+"), COUNT(*), BIT_OR("+id+") FROM %[1]s"+pred, name, key, sbColumns[col], in)
			tb.runIsIDs = true
		case w.opts.KSumCopy && e[colK] == colenc.Ore && col == colK:
			tb.sumRun = ps.Prepare("SELECT SUM("+v+"), COUNT(*), MIN("+id+"), MAX("+id+") FROM %[1]s"+pred, name, key, sbColumns[col], in)
		}
	case w.opts.KSumByValue && col == colK && wk.mode != inClient:
		// One row per distinct k in the range with its count: an
		// index of one entry per value (the ore copy's, deduplicated;
		// a det k's) answers it without visiting every row's k.
		g := "k"
		if w.kValueCopy() {
			g = kValueColumn
			pred = " WHERE " + kValueColumn + " BETWEEN ? AND ?"
			sel = "SELECT " + g + ", COUNT(*) FROM %[1]s"
		} else {
			sel = "SELECT k, COUNT(*) FROM %[1]s"
		}
		from = pred + " GROUP BY " + g
		tb.byValue = true
	case wk.mode != inClient:
		// k whole: an ore k's MAC is checked as it is decrypted
		sel = "SELECT %[2]s, k FROM %[1]s"
	}
	tb.read = ps.Prepare(sel+from, name, key, sbColumns[col], in)
}

// writeStatements prepares the write mix's statements.
func (wk *encWorker) writeStatements(ps *engine.Preparer, tb *encTable, name string) {
	w, e, enc := wk.w, wk.spec, tb.enc
	switch e[colK] {
	case "":
		tb.incK = ps.Prepare("UPDATE %s SET k=k+1 WHERE id=?", name)
	case colenc.Ashe:
		// ashe adds on the server like plaintext does, 1 being AsheOne
		tb.incK = ps.Prepare("UPDATE %s SET k=k+%d WHERE id=?", name, colenc.AsheOne)
	default:
		tb.lockK = ps.Prepare("SELECT k FROM %s WHERE id=? FOR UPDATE", name)
		tb.setK = ps.Prepare("UPDATE %s SET k=? WHERE id=?", name)
		if w.opts.KSumCopy {
			tb.setK = ps.Prepare("UPDATE %s SET k=?, %s=%s+%d WHERE id=?", name, kSumColumn, kSumColumn, colenc.AsheOne)
		}
		if w.kValueCopy() {
			tb.setK = ps.Prepare("UPDATE %s SET k=?, %s=? WHERE id=?", name, kValueColumn)
		}
	}
	tb.setC = ps.Prepare("UPDATE %s SET c=? WHERE id=?", name)
	tb.del = ps.Prepare("DELETE FROM %s WHERE id=?", name)
	tb.insert = ps.Prepare("INSERT INTO %s (%s) VALUES (%s)", name, enc.columnList(),
		strings.TrimSuffix(strings.Repeat("?, ", enc.width()), ", "))
}

func (wk *encWorker) Event(c *workload.Counters) error {
	if wk.replay {
		wk.src.Rewind()
		wk.replay = false
	} else {
		wk.src.Mark()
	}
	return wk.event(c, &wk.tables[int(wk.src.Uniform(1, uint32(wk.o.Tables)))-1])
}

func (wk *encWorker) id() int64 { return int64(wk.src.Default(1, uint32(wk.o.TableSize))) }

func (wk *encWorker) Abort(retry bool) error {
	wk.replay = retry
	return wk.conn.Exec(context.Background(), "ROLLBACK")
}

// Close puts back the rows this worker deleted, so the next run starts
// from the table prepare made.
func (wk *encWorker) Close() error {
	for t := range wk.tables {
		tb := &wk.tables[t]
		for len(tb.deleted) > 0 {
			id := tb.deleted[len(tb.deleted)-1]
			if err := wk.insertRow(tb, id); err != nil {
				_ = wk.conn.Close()
				return fmt.Errorf("re-inserting deleted row %d: %w", id, err)
			}
			// A worker that takes over this one's list must not insert it twice.
			tb.deleted = tb.deleted[:len(tb.deleted)-1]
		}
	}
	if wk.cipher != nil {
		if err := wk.cipher.RecordRndUsesAndWarn(wk.w.enc.keys, nil); err != nil {
			_ = wk.conn.Close()
			return err
		}
	}
	return wk.conn.Close()
}

// pointByID: SELECT c WHERE id=?.
func (wk *encWorker) pointByID(c *workload.Counters, tb *encTable) error {
	id := wk.id()
	arg, key, err := tb.enc.idLookup(id)
	if err != nil {
		return err
	}
	c.Reads++
	if wk.mode == inClient {
		return tb.read.Query(nil, func(v [][]byte) error {
			if cmp, err := colenc.OreCompare(v[0], arg.Str); err != nil || cmp != 0 {
				return err
			}
			k, err := tb.enc.rowKey(v[0])
			if err != nil {
				return err
			}
			return tb.enc.checkText(colC, k, v[1])
		})
	}
	wk.args = append(wk.args[:0], arg)
	return tb.read.Query(wk.args, func(v [][]byte) error {
		return tb.enc.checkText(colC, key, v[0])
	})
}

// pointByK: SELECT c WHERE k=? (several rows may match).
func (wk *encWorker) pointByK(c *workload.Counters, tb *encTable) error {
	k := wk.id()
	c.Reads++
	if wk.mode == inClient {
		var tok []byte
		if wk.spec[colK] == colenc.Ore {
			a, err := tb.enc.bound(colK, k)
			if err != nil {
				return err
			}
			tok = a.Str
		}
		return tb.read.Query(nil, func(v [][]byte) error {
			key := v[0] // already the row key (rowKeyExpr)
			if ok, err := wk.matches(tb, key, v[1], tok, k, k); err != nil || !ok {
				return err
			}
			return tb.enc.checkText(colC, key, v[2])
		})
	}
	arg, err := tb.enc.bound(colK, k)
	if err != nil {
		return err
	}
	wk.args = append(wk.args[:0], arg)
	return tb.read.Query(wk.args, func(v [][]byte) error {
		return tb.enc.checkText(colC, v[0], v[1])
	})
}

// matches filters a k value in the client: ORE against the bound, other
// schemes by decryption.
func (wk *encWorker) matches(tb *encTable, key, stored, tok []byte, lo, hi int64) (bool, error) {
	if tok != nil {
		c, err := colenc.OreCompare(stored, tok)
		return c == 0, err
	}
	v, err := tb.enc.intOf(colK, key, stored)
	return v >= lo && v <= hi, err
}

// rangeSum: SELECT SUM(k) WHERE id|k BETWEEN lo AND lo+range_size-1; the
// sum is the server's for plaintext k, the client's otherwise.
func (wk *encWorker) rangeSum(c *workload.Counters, tb *encTable) error {
	col := wk.col
	lo := wk.id()
	hi := lo + int64(wk.o.RangeSize) - 1
	c.Reads++
	wk.args = wk.args[:0]
	if tb.byValue {
		return wk.sumByValue(tb, lo, hi)
	}
	switch wk.mode {
	case onServer:
		a, b, err := tb.enc.bounds(col, lo, hi)
		if err != nil {
			return err
		}
		wk.args = append(wk.args, a, b)
	case inList:
		if err := wk.appendInList(tb, col, lo, hi); err != nil {
			return err
		}
	case inClient:
		return wk.rangeInClient(tb, col, lo, hi)
	}
	if wk.spec[colK] == "" {
		return tb.read.Exec(wk.args)
	}
	if wk.spec[colK] == colenc.Ashe || tb.enc.sum != nil {
		_, err := wk.asheSum(tb, lo, hi)
		return err
	}
	var sum int64
	return tb.read.Query(wk.args, func(v [][]byte) error {
		k, err := tb.sumK(v[0], v[1])
		sum += k
		return err
	})
}

// appendInList adds the det ciphertexts of lo..hi to the arguments in
// byte order: the server sorts an IN list and builds one index range per
// value, both cheaper on a list already in order (MariaDB spent about a
// sixth of its time on them for a 100-value list in random order).
func (wk *encWorker) appendInList(tb *encTable, col int, lo, hi int64) error {
	from := len(wk.args)
	for v := lo; v <= hi; v++ {
		a, err := tb.enc.bound(col, v)
		if err != nil {
			return err
		}
		wk.args = append(wk.args, a)
	}
	slices.SortFunc(wk.args[from:], engine.ByBytes)
	return nil
}

// sumByValue adds value x count over the distinct k of a range, which
// the server grouped (--k-sum-by-value).
func (wk *encWorker) sumByValue(tb *encTable, lo, hi int64) error {
	var err error
	if tb.enc.value != nil {
		var a, b engine.Arg
		if a, b, err = tb.enc.valueBounds(lo, hi); err != nil {
			return err
		}
		wk.args = append(wk.args, a, b)
	} else if wk.mode == onServer {
		var a, b engine.Arg
		if a, b, err = tb.enc.bounds(colK, lo, hi); err != nil {
			return err
		}
		wk.args = append(wk.args, a, b)
	} else if err = wk.appendInList(tb, colK, lo, hi); err != nil {
		return err
	}
	var sum int64
	return tb.read.Query(wk.args, func(v [][]byte) error {
		k, err := tb.enc.groupedK(v[0])
		if err != nil {
			return err
		}
		n, ok := parseCount(v[1])
		if !ok {
			return fmt.Errorf("range sum by value: count %q", v[1])
		}
		sum += k * n
		return nil
	})
}

// parseCount reads a COUNT(*) as the server writes it (at most 18
// digits, so no wrap-around), without the allocation strconv's error path
// costs.
func parseCount(b []byte) (int64, bool) {
	if len(b) > 18 || len(b) > 0 && b[0] == '-' {
		return 0, false
	}
	n, ok := colenc.SumMod64(b)
	return int64(n), ok
}

// rangeInClient reads every row (row key, k, id) and sums k over those
// whose id or k is in range: ORE columns are compared with bounds, others
// decrypted.
func (wk *encWorker) rangeInClient(tb *encTable, col int, lo, hi int64) error {
	at := 2 // the id's position in the row
	if col == colK {
		at = 1
	}
	var loTok, hiTok []byte
	if wk.spec[col] == colenc.Ore {
		a, b, err := tb.enc.bounds(col, lo, hi)
		if err != nil {
			return err
		}
		loTok, hiTok = a.Str, b.Str
	}
	var sum int64
	return tb.read.Query(nil, func(v [][]byte) error {
		key := v[0] // already the row key (rowKeyExpr)
		if loTok != nil {
			x, err := colenc.OreCompare(v[at], loTok)
			if err != nil || x < 0 {
				return err
			}
			if y, err := colenc.OreCompare(v[at], hiTok); err != nil || y > 0 {
				return err
			}
		} else if x, err := tb.enc.intOf(col, key, v[at]); err != nil || x < lo || x > hi {
			return err
		}
		k, err := tb.enc.intOf(colK, key, v[1])
		sum += k
		return err
	})
}

// writeMix is R4's write workload: k=k+1, c=?, DELETE, INSERT, 25% each.
// Deletes and inserts take ids of this worker's residue class, and an
// insert puts back an id this worker deleted (a delete when it has none),
// so the table keeps its size and no insert collides.
func (wk *encWorker) writeMix(c *workload.Counters, tb *encTable) error {
	switch wk.src.Uniform(0, 3) {
	case 0:
		return wk.incrementK(c, tb)
	case 1:
		id := wk.id()
		arg, key, err := tb.enc.idLookup(id)
		if err != nil {
			return err
		}
		wk.cbuf = wk.src.FillTemplate(wk.cbuf, cTemplate)
		cv, err := tb.enc.store(colC, key, colenc.Text(string(wk.cbuf)))
		if err != nil {
			return err
		}
		c.Writes++
		wk.args = append(wk.args[:0], cv, arg)
		return tb.setC.Exec(wk.args)
	}
	if ids := tb.deleted; len(ids) > 0 && wk.src.Uniform(0, 1) == 0 {
		id := ids[len(ids)-1]
		if err := wk.insertRow(tb, id); err != nil {
			return err
		}
		tb.deleted = ids[:len(ids)-1]
		c.Writes++
		return nil
	}
	id := wk.ownID()
	for _, d := range tb.deleted {
		if d == id {
			return nil // already gone: the DELETE would find nothing
		}
	}
	arg, _, err := tb.enc.idLookup(id)
	if err != nil {
		return err
	}
	c.Writes++
	wk.args = append(wk.args[:0], arg)
	if err := tb.del.Exec(wk.args); err != nil {
		return err
	}
	tb.deleted = append(tb.deleted, id)
	return nil
}

// ownID is a random id of this worker's residue class (mod threads).
func (wk *encWorker) ownID() int64 {
	id := wk.id()
	id += int64(wk.tid) - id%int64(wk.threads)
	for id > int64(wk.o.TableSize) {
		id -= int64(wk.threads)
	}
	for id < 1 {
		id += int64(wk.threads)
	}
	return id
}

func (wk *encWorker) insertRow(tb *encTable, id int64) error {
	wk.cbuf = wk.src.FillTemplate(wk.cbuf, cTemplate)
	wk.padbuf = wk.src.FillTemplate(wk.padbuf, padTemplate)
	var asheID uint64
	if wk.spec[colK] == colenc.Ashe || tb.enc.sum != nil {
		var err error
		if asheID, err = wk.asheIDs.take(); err != nil {
			return err
		}
	}
	row, err := tb.enc.row(id, wk.id(), wk.cbuf, wk.padbuf, asheID)
	if err != nil {
		return err
	}
	wk.args = append(wk.args[:0], row[:tb.enc.width()]...)
	return tb.insert.Exec(wk.args)
}

// incrementK is k=k+1: on the server for plaintext k, else read under a
// row lock, decrypt, add, encrypt and write back in one transaction.
func (wk *encWorker) incrementK(c *workload.Counters, tb *encTable) error {
	arg, key, err := tb.enc.idLookup(wk.id())
	if err != nil {
		return err
	}
	if tb.incK != nil {
		c.Writes++
		wk.args = append(wk.args[:0], arg)
		return tb.incK.Exec(wk.args)
	}
	if err := wk.begin.Exec(nil); err != nil {
		return err
	}
	c.Others++
	var k int64
	found := false
	wk.args = append(wk.args[:0], arg)
	err = tb.lockK.Query(wk.args, func(v [][]byte) error {
		x, err := tb.enc.intOf(colK, key, v[0])
		k, found = x, true
		return err
	})
	if err != nil {
		return err
	}
	c.Reads++
	if found {
		kv, err := tb.enc.store(colK, key, colenc.Int(k+1))
		if err != nil {
			return err
		}
		wk.args = append(wk.args[:0], kv)
		if tb.enc.value != nil {
			ct, err := tb.enc.valueOf(k + 1)
			if err != nil {
				return err
			}
			wk.args = append(wk.args, engine.Arg{Str: ct})
		}
		wk.args = append(wk.args, arg)
		if err := tb.setK.Exec(wk.args); err != nil {
			return err
		}
		c.Writes++
	}
	c.Others++
	return wk.commit.Exec(nil)
}
