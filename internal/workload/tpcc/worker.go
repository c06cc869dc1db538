package tpcc

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"math"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

// input is one transaction's terminal input, kept so that a retried
// transaction repeats exactly.
type input struct {
	typ       int
	d         int64 // district
	cw, cd    int64 // customer's warehouse and district (Payment)
	cid       int64
	byName    bool
	last      string
	amount    int64 // cents
	carrier   int64
	threshold int64
	lines     []line
	rollback  bool
	delivered int64 // districts a Delivery split in transactions has committed
}

type line struct{ item, supply, qty int64 }

// worker is one terminal: its connection, statements, codec and generator.
type worker struct {
	w      *Workload
	s      *schema
	k      *codec
	g      rng
	conn   engine.Conn
	home   int64
	slDist int64
	st     statements
	in     input
	retry  bool
	paced  bool
	start  time.Time
	c      *workload.Counters
	items  [txCount]time.Duration
	notes  map[string]int64
	prev   int
	// oldestSeen[d] is the oldest new order this terminal last found in
	// its home district d: a lower bound of the oldest now (see
	// oldestFromWindow). 0: not known yet.
	oldestSeen [districts + 1]int64
	// taken[d] is the order of district d the open transaction locked to
	// deliver (0: none); published to w.delivered once committed.
	taken [districts + 1]int64
	// args is scratch for the long argument lists: Delivery's probe
	// windows and StockLevel's order window (one transaction at a time).
	args     []engine.Arg
	lineArgs []engine.Arg // Delivery's per-line dates, then the order
	// lowSeen is StockLevel's set of items counted, cleared per call.
	lowSeen map[int64]bool
	// snapshotPerTx: the session's isolation reads from one snapshot per
	// transaction (repeatable read, serializable), not per statement.
	snapshotPerTx bool
}

// NewWorker prepares the terminal's statements for the level's encryption.
func (w *Workload) NewWorker(ctx context.Context, env workload.WorkerEnv) (workload.Worker, error) {
	conn, d, id := env.Conn, env.Dialect, env.ID
	cipher, err := w.keys()
	if err != nil {
		return nil, err
	}
	if err := w.checkConfig(ctx, conn, cipher); err != nil {
		return nil, err
	}
	cd, err := colenclayer.SQLFor(env.Target.Engine.Kind())
	if err != nil {
		return nil, err
	}
	// Parameters are ciphertexts or ASCII, at every level alike.
	if err := engine.SetSession(ctx, conn, cd.BytesParams, "to take parameters as bytes"); err != nil {
		return nil, err
	}
	if err := engine.SetSession(ctx, conn, w.isolationSQL(d), "isolation to "+w.o.Isolation); err != nil {
		return nil, err
	}
	if w.o.Isolation == "serializable" {
		if err := engine.SetSession(ctx, conn, d.SerializableScans, "to index scans for serializable conflict checks"); err != nil {
			return nil, err
		}
	}
	k, err := newCodec(w.s, w.o.Level, cipher)
	if err != nil {
		return nil, err
	}
	wk := &worker{w: w, s: w.s, k: k, g: newRNG(w.seed, uint64(id)), conn: conn,
		home: int64(id%w.o.Warehouses) + 1, slDist: int64(id/w.o.Warehouses)%districts + 1, notes: map[string]int64{}, lowSeen: map[int64]bool{}}
	if p, ok := env.Previous.(*worker); ok {
		// A transaction cut by the lost connection is not repeated: its
		// commit may have happened. The terminal carries on its sequence.
		wk.g, wk.notes, wk.prev, wk.start = p.g, p.notes, p.prev, p.start
		wk.in, wk.paced = p.in, p.paced // drawn by Pause before a reconnect-per-txn
	}
	if err := wk.st.prepare(ctx, conn, w.s, wk.k); err != nil {
		return nil, err
	}
	if wk.snapshotPerTx, err = snapshotPerTransaction(ctx, conn, d); err != nil {
		return nil, err
	}
	return wk, nil
}

// snapshotPerTransaction says whether the session's isolation, as the
// server reports it, is stricter than read committed.
func snapshotPerTransaction(ctx context.Context, conn engine.Conn, d engine.Dialect) (bool, error) {
	if d.ShowIsolation == "" {
		return true, nil // the cautious answer
	}
	rows, err := conn.Query(ctx, d.ShowIsolation)
	if err != nil {
		return false, fmt.Errorf("reading the session's isolation level: %w", err)
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return false, fmt.Errorf("reading the session's isolation level: %q returned no value", d.ShowIsolation)
	}
	return readsOneSnapshot(rows[0][len(rows[0])-1]), nil
}

// readsOneSnapshot: the isolation level's name as a server writes it is
// stricter than read committed.
func readsOneSnapshot(level string) bool {
	level = strings.ToUpper(strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimSpace(level)))
	return level != "READ COMMITTED" && level != "READ UNCOMMITTED"
}

// checkConfig refuses data prepared at another level, scale or keyset,
// before anything is read or written.
func (w *Workload) checkConfig(ctx context.Context, c engine.Conn, cipher *colenc.Cipher) error {
	rows, err := c.Query(ctx, "SELECT warehouses, encrypt_columns, key_check FROM "+configTable)
	if err != nil || len(rows) != 1 {
		return fmt.Errorf("reading %s (run `encbench prepare tpcc` first): %v", configTable, err)
	}
	if rows[0][0] != itoa(w.o.Warehouses) || rows[0][1] != itoa(w.o.Level) {
		return errs.Usage("the data was prepared with --warehouses %s --encrypt-columns %s, not %d and %d: prepare again or use the same options",
			rows[0][0], rows[0][1], w.o.Warehouses, w.o.Level)
	}
	if w.o.Level == 0 {
		return nil
	}
	ct, err := hex.DecodeString(rows[0][2])
	if err == nil {
		var v colenc.Value
		v, err = cipher.Decrypt(keyCheckColumn, nil, ct)
		if err == nil && v.S != keyCheck {
			err = fmt.Errorf("unexpected check value")
		}
	}
	if err != nil {
		return errs.Usage("the tpcc data was encrypted under another keyset than %s: use the keyset and master key prepare used, or prepare again", w.o.Keys.Resolved().Keyset)
	}
	// Lookups by det columns encrypt the searched value under the primary
	// key: after a rotation they would silently find no rows.
	if now, err := cipher.Encrypt(keyCheckColumn, nil, colenc.Text(keyCheck)); err != nil || !bytes.Equal(now, ct) {
		return errs.Usage("the keyset's primary key changed since prepare (keys rotate): TPC-C's lookups by det columns would find no rows; prepare again")
	}
	return nil
}

// Close records the rnd key's uses (the connection is the runner's).
func (wk *worker) Close() error {
	if wk.w.cipher == nil {
		return nil
	}
	return wk.w.cipher.RecordRndUsesAndWarn(wk.w.o.Keys, nil)
}

func (wk *worker) Notes() map[string]int64 { return wk.notes }

// Abort rolls back; with retry the next Event tries the transaction again
// (counted per transaction type) with its input or, with --retry-input
// new, new input of its type; otherwise it draws a new transaction.
func (wk *worker) Abort(retry bool) error {
	wk.retry = retry
	if retry {
		wk.notes["retries_"+txNames[wk.in.typ]]++
	}
	return wk.st.rollback.Exec(nil)
}

// Keying times and mean think times in seconds (TPC-C 5.2.5.7).
var keying = [txCount]float64{18, 3, 2, 2, 2}
var think = [txCount]float64{12, 12, 10, 5, 5}

// Pause is the wait before the next transaction when --think-time is on:
// the last transaction's think time and the next one's keying time.
func (wk *worker) Pause() time.Duration {
	if !wk.w.o.ThinkTime {
		return 0
	}
	wk.draw()
	wk.paced = true
	t := keying[wk.in.typ]
	if wk.start != (time.Time{}) {
		t += math.Min(-math.Log(1-wk.g.r.Float64())*think[wk.prev], 10*think[wk.prev])
	}
	return time.Duration(t * float64(time.Second))
}

// draw picks the next transaction and its input (the 45/43/4/4/4 mix).
func (wk *worker) draw() {
	var typ int
	switch r := wk.g.Int(1, 100); {
	case r <= 45:
		typ = txNewOrder
	case r <= 88:
		typ = txPayment
	case r <= 92:
		typ = txOrderStatus
	case r <= 96:
		typ = txDelivery
	default:
		typ = txStockLevel
	}
	wk.drawInput(typ)
}

// drawInput draws a transaction of type typ's input (TPC-C 2.4.1 to
// 2.8.1): its district, customer, lines, amounts.
func (wk *worker) drawInput(typ int) {
	g, in := wk.g, &wk.in
	*in = input{lines: in.lines[:0], typ: typ}
	W := wk.w.o.Warehouses
	in.d = int64(g.Int(1, districts))
	in.cw, in.cd = wk.home, in.d
	in.cid = int64(g.NURand(1023, cCID, 1, customers))
	switch in.typ {
	case txNewOrder:
		n := g.Int(5, maxOrderLines)
		in.rollback = g.Int(1, 100) == 1
		for i := 0; i < n; i++ {
			l := line{item: int64(g.NURand(8191, cOLIID, 1, items)), supply: wk.home, qty: int64(g.Int(1, 10))}
			if W > 1 && g.Int(1, 100) == 1 {
				l.supply = int64(otherWarehouse(g, W, int(wk.home)))
			}
			in.lines = append(in.lines, l)
		}
		// Lock stock rows in item order, so terminals do not deadlock;
		// the unused item of a rolled-back order comes last.
		sortLines(in.lines)
		if in.rollback {
			in.lines[n-1].item = items + 1
		}
	case txPayment, txOrderStatus:
		if in.typ == txPayment {
			in.amount = g.Money(100, 500000)
			if W > 1 && g.Int(1, 100) > 85 {
				in.cw, in.cd = int64(otherWarehouse(g, W, int(wk.home))), int64(g.Int(1, districts))
			}
		}
		if g.Int(1, 100) <= 60 {
			in.byName, in.last = true, LastName(g.NURand(255, cLastRun, 0, 999))
		}
	case txDelivery:
		in.carrier = int64(g.Int(1, 10))
	case txStockLevel:
		in.threshold = int64(g.Int(10, 20))
	}
}

func otherWarehouse(g rng, W, home int) int {
	o := g.Int(1, W-1)
	if o >= home {
		o++
	}
	return o
}

func sortLines(l []line) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].item < l[j-1].item; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// next sets up the transaction to run: a new one (drawn, unless Pause
// drew it), or the one a conflict rolled back, again.
func (wk *worker) next() {
	switch {
	case !wk.retry:
		if !wk.paced {
			wk.draw()
		}
		wk.start = time.Now()
	case wk.w.o.RetryInput == retryNew:
		// OLTPBench's worker tries a transaction that failed with a
		// serialization failure or deadlock again as the same type with
		// new input (its executeWork draws the parameters anew), and the
		// latency counts from the first try.
		wk.drawInput(wk.in.typ)
	}
	wk.retry, wk.paced = false, false
}

// Event runs one transaction, or repeats the one that was rolled back.
func (wk *worker) Event(c *workload.Counters) error {
	wk.next()
	wk.c = c
	var err error
	switch wk.in.typ {
	case txNewOrder:
		err = wk.newOrder()
	case txPayment:
		err = wk.payment()
	case txOrderStatus:
		err = wk.orderStatus()
	case txDelivery:
		err = wk.delivery()
	case txStockLevel:
		err = wk.stockLevel()
	}
	if err != nil {
		return err
	}
	wk.items = [txCount]time.Duration{}
	wk.items[wk.in.typ] = max(time.Since(wk.start), time.Nanosecond)
	c.Parts = wk.items[:]
	wk.prev = wk.in.typ
	return nil
}

// Statement helpers count what they send.
func (wk *worker) exec(st engine.Stmt, args ...engine.Arg) error {
	wk.c.Writes++
	return st.Exec(args)
}

func (wk *worker) query(st engine.Stmt, row func([][]byte) error, args ...engine.Arg) error {
	wk.c.Reads++
	return st.Query(args, row)
}

func (wk *worker) begin() error {
	wk.c.Others++
	return wk.st.begin.Exec(nil)
}

func (wk *worker) commit() error {
	wk.c.Others++
	return wk.st.commit.Exec(nil)
}

func i64(v int64) engine.Arg { return engine.Arg{Int: v} }

// errNoRow is a row a transaction needs and did not find.
func errNoRow(what string) error {
	return fmt.Errorf("%s: no such row (was the data prepared with these options?)", what)
}

func joinQ(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
