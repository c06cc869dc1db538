package oltp

import (
	"bytes"
	"context"
	"fmt"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/randgen"
	"github.com/encbench/encbench/internal/workload"
)

// The enc_* workloads are report R4's statements on the sbtest schema with
// columns encrypted in the client (--encrypt). With no column encrypted
// they are the plaintext baseline of the same statements.
var encDescriptions = map[string]string{
	"enc_point_select":   "R4: SELECT c WHERE id=? (columns per --encrypt)",
	"enc_range_sum":      "R4: SELECT SUM(k) WHERE id BETWEEN ? AND ?+range_size-1",
	"enc_write_mix":      "R4: 25% each k=k+1, c=?, DELETE, INSERT by id",
	"enc_point_select_k": "R4: SELECT c WHERE k=?",
	"enc_range_sum_k":    "R4: SELECT SUM(k) WHERE k BETWEEN ? AND ?+range_size-1",
}

// encConfigTable records how the enc tables were prepared.
const encConfigTable = "sbtest_enc"

// keyCheck is a det value stored at prepare: a run with another keyset
// fails on it before anything else.
var keyCheck = colenc.Column{Table: encConfigTable, Name: "key_check", Scheme: colenc.Det}

// encDialect is how the server of a run stores and queries encrypted
// columns: the engine's dialect and the column layer's part for it.
type encDialect struct {
	engine.Dialect
	colenclayer.EngineSQL
}

func newEncDialect(t engine.Target) (encDialect, error) {
	cd, err := colenclayer.SQLFor(t.Engine.Kind())
	return encDialect{t.Engine.Dialect(), cd}, err
}

// encState is what enc workloads add to a Workload.
type encState struct {
	spec     encSpec
	keys     colenc.Paths
	once     sync.Once
	cipher   *colenc.Cipher
	cipherEr error
}

func isEnc(name string) bool { _, ok := encDescriptions[name]; return ok }

func (w *Workload) cipher() (*colenc.Cipher, error) {
	if !w.enc.spec.any() {
		return nil, nil
	}
	w.enc.once.Do(func() { w.enc.cipher, w.enc.cipherEr = colenc.Open(w.enc.keys) })
	return w.enc.cipher, w.enc.cipherEr
}

func (w *Workload) encTables() []string { return append(w.tableNames(), encConfigTable) }

// encSpecText is --encrypt as recorded with the data and in results, with
// k's ashe copy when --k-sum-copy keeps one.
func (w *Workload) encSpecText() string {
	switch {
	case w.opts.KSumCopy:
		return w.enc.spec.String() + "," + kSumColumn + ":ashe"
	case w.kValueCopy():
		return w.enc.spec.String() + "," + kValueColumn + ":ore_det"
	}
	return w.enc.spec.String()
}

// kValueCopy: --k-sum-by-value on an ore k keeps a value-bound ore copy of
// k (a det k is value-bound already and needs none).
func (w *Workload) kValueCopy() bool { return w.opts.KSumByValue && w.enc.spec[colK] == colenc.Ore }

// kSumColumn and kSumIDColumn hold --k-sum-copy's ashe copy of k and its
// identifier.
const (
	kSumColumn   = "k_sum"
	kSumIDColumn = "k_sum_id"
	// kValueColumn holds --k-sum-by-value's copy of an ore k, bound to
	// the column only: equal k, equal bytes.
	kValueColumn = "k_value"
)

func (w *Workload) validateEnc(d encDialect) error {
	e := w.enc.spec
	switch {
	case w.name == "enc_write_mix" && e.mode(colID, false, d.OreType) == inClient:
		return errs.Usage("enc_write_mix finds rows by id, which this server cannot compare as %s: use --encrypt id:det", e[colID])
	case e[colK] == colenc.Ashe && strings.HasSuffix(w.name, "_k"):
		return errs.Usage("%s compares k, which ashe cannot: use k:ore or k:det", w.name)
	case e[colK] == colenc.Ashe && w.name == "enc_range_sum" && e.mode(colID, true, d.OreType) == inClient:
		return errs.Usage("k:ashe needs the server to select the id range: use id:det or an ore-capable server")
	case w.opts.KSumCopy && e[colK] != colenc.Ore && e[colK] != colenc.Det:
		return errs.Usage("--k-sum-copy keeps an ashe copy of an ore or det k: use --encrypt k:ore or k:det with it")
	case w.opts.KSumByValue && w.opts.KSumCopy:
		return errs.Usage("--k-sum-by-value and --k-sum-copy are two ways to sum k: use one")
	case w.opts.KSumByValue && e[colK] != colenc.Ore && e[colK] != colenc.Det:
		return errs.Usage("--k-sum-by-value groups an encrypted k by value: use --encrypt k:ore or k:det with it")
	case w.kValueCopy() && d.OreDetType == "":
		return errs.Usage("--k-sum-by-value with k:ore needs a server that orders ore values (PostgreSQL with encbench_ore): use k:det on this server")
	case (e[colK] == colenc.Ashe || w.opts.KSumCopy) && strings.HasPrefix(w.name, "enc_range_sum") && d.ListAgg == nil:
		return errs.Usage("%s sums ashe values with their identifiers, which needs a SQL server (PostgreSQL, MySQL, MariaDB)", w.name)
	}
	return nil
}

// prepareEnc creates the tables with encrypted column types, loads
// sysbench's data encrypted in the client, and records the spec.
func (w *Workload) prepareEnc(ctx context.Context, env workload.Env) error {
	d, err := newEncDialect(env.Target)
	if err != nil {
		return err
	}
	if err := w.validateEnc(d); err != nil {
		return err
	}
	var cipher *colenc.Cipher
	if w.enc.spec.any() {
		c, created, err := colenc.OpenForPrepare(w.enc.keys)
		if err != nil {
			return err
		}
		if created {
			fmt.Fprintf(env.Log, "Created column encryption keys: master key %s, keyset %s (mode 0600)\n", w.enc.keys.MasterKey, w.enc.keys.Resolved().Keyset)
		}
		// A data set of its own: its ashe keys share no mask with any
		// earlier prepare's under this keyset.
		if cipher, err = c.ForDataSet(colenc.NewDataSet()); err != nil {
			return err
		}
	}
	admin, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	suffix, err := workload.StartTables(ctx, env, admin, w.encTables())
	if err != nil {
		return err
	}
	if w.usesOre() && d.OreType != "" {
		if err := admin.Exec(ctx, d.OreSetup); err != nil {
			return fmt.Errorf("the ore scheme needs the encbench_ore extension on this server (run `make ore-ext`, which needs postgresql-server-dev-15): %w", err)
		}
	}
	err = w.loadTables(ctx, env, fmt.Sprintf(" (encrypted: %s)", w.enc.spec), func(ctx context.Context, c engine.Conn, src *randgen.Source, n int) error {
		return w.createEncTable(ctx, c, d, cipher, src, n, suffix, env)
	})
	if err != nil {
		return err
	}
	// Written last: a run refuses tables whose prepare did not finish.
	if err := w.writeEncConfig(ctx, admin, d, cipher, suffix); err != nil {
		return err
	}
	if cipher != nil {
		return cipher.RecordRndUsesAndWarn(w.enc.keys, env.Log)
	}
	return nil
}

func (w *Workload) usesOre() bool {
	for _, s := range w.enc.spec {
		if s == colenc.Ore {
			return true
		}
	}
	return false
}

func (w *Workload) writeEncConfig(ctx context.Context, c engine.Conn, d encDialect, cipher *colenc.Cipher, suffix string) error {
	if err := workload.Own(ctx, c, w.name, []string{encConfigTable}); err != nil {
		return err
	}
	ddl := fmt.Sprintf("CREATE TABLE %s(spec VARCHAR(200) NOT NULL, tables INTEGER NOT NULL, table_size INTEGER NOT NULL, key_check %s, ashe_next BIGINT NOT NULL, data_set %s) %s",
		encConfigTable, d.BinaryType(64), d.BinaryType(96), suffix)
	if err := c.Exec(ctx, ddl); err != nil {
		return err
	}
	st, err := c.Prepare(ctx, "INSERT INTO "+encConfigTable+" VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	args := []engine.Arg{{Str: []byte(w.encSpecText())}, {Int: int64(w.opts.Tables)}, {Int: int64(w.opts.TableSize)}, {Null: true},
		{Int: freshAsheFrom}, {Null: true}}
	if cipher != nil {
		ct, err := cipher.Encrypt(keyCheck, nil, colenc.Text("encbench"))
		if err != nil {
			return err
		}
		args[3] = engine.Arg{Str: ct}
		if args[5].Str, err = cipher.SealDataSet(cipher.DataSet()); err != nil {
			return err
		}
		args[5].Null = false
	}
	return st.Exec(args)
}

// checkEncConfig refuses data prepared with another spec, size or keyset.
func (w *Workload) checkEncConfig(ctx context.Context, c engine.Conn) error {
	spec, tables, size, check, _, rows, err := readEncConfig(ctx, c)
	if err != nil {
		return errs.Usage("no %s table of this version: run `encbench prepare %s` with the same --encrypt first (%w)", encConfigTable, w.name, err)
	}
	switch {
	case rows != 1:
		return fmt.Errorf("%s has %d rows, want 1: prepare again", encConfigTable, rows)
	case spec != w.encSpecText():
		return errs.Usage("the tables were prepared with --encrypt %s, not %s: pass the same --encrypt (and --k-sum-copy or --k-sum-by-value) or prepare again", spec, w.encSpecText())
	case tables != fmt.Sprint(w.opts.Tables) || size != fmt.Sprint(w.opts.TableSize):
		return errs.Usage("the tables were prepared with --tables %s --table-size %s: pass the same or prepare again", tables, size)
	}
	cipher, err := w.cipher()
	if err != nil || cipher == nil {
		return err
	}
	if v, err := cipher.Decrypt(keyCheck, nil, check); err != nil || v.S != "encbench" {
		return errs.Usage("the enc tables were encrypted under another keyset than %s: use the keyset and master key prepare used, or prepare again", w.enc.keys.Resolved().Keyset)
	}
	// det lookups, ore bounds and ashe masks come from the primary det key:
	// after a rotation they no longer match what prepare stored.
	if now, err := cipher.Encrypt(keyCheck, nil, colenc.Text("encbench")); err != nil || !bytes.Equal(now, check) {
		return errs.Usage("the keyset's primary key changed since prepare (keys rotate): det, ore and ashe values depend on it; prepare again")
	}
	return nil
}

// readEncConfig reads the config table's one row.
func readEncConfig(ctx context.Context, c engine.Conn) (spec, tables, size string, check, dataSet []byte, rows int, err error) {
	st, err := c.Prepare(ctx, "SELECT spec, tables, table_size, key_check, data_set FROM "+encConfigTable)
	if err != nil {
		return "", "", "", nil, nil, 0, err
	}
	err = st.Query(nil, func(v [][]byte) error {
		rows++
		spec, tables, size = string(v[0]), string(v[1]), string(v[2])
		check, dataSet = append([]byte(nil), v[3]...), append([]byte(nil), v[4]...)
		return nil
	})
	return spec, tables, size, check, dataSet, rows, err
}

// dataCipher is the keyset's cipher bound to the data set the tables
// were prepared as (its nonce authenticated under the keyset), or nil for
// plaintext tables.
func (w *Workload) dataCipher(ctx context.Context, c engine.Conn) (*colenc.Cipher, error) {
	cipher, err := w.cipher()
	if err != nil || cipher == nil {
		return nil, err
	}
	_, _, _, _, sealed, rows, err := readEncConfig(ctx, c)
	switch {
	case err != nil:
		return nil, errs.Usage("no %s table of this version: run `encbench prepare %s` with the same --encrypt first (%w)", encConfigTable, w.name, err)
	case rows != 1:
		return nil, fmt.Errorf("%s has %d rows, want 1: prepare again", encConfigTable, rows)
	case len(sealed) == 0:
		return nil, errs.Usage("the enc tables were prepared without a data set nonce (an earlier encbench): prepare them again")
	}
	nonce, err := cipher.OpenDataSet(sealed)
	if err != nil {
		return nil, err
	}
	return cipher.ForDataSet(nonce)
}

// kRanks draws a table's rows as createEncTable does and returns, for
// each k in turn, its next identifier in k's order: 1..n, k ascending.
func kRanks(src *randgen.Source, n int) func(k int64) uint64 {
	next := make([]uint64, n+2)
	var cv, pv []byte
	for range n {
		var k int64
		cv, pv, k = drawRow(src, cv, pv, n)
		next[k+1]++
	}
	next[0] = 1
	for k := 1; k < len(next); k++ {
		next[k] += next[k-1] // the first identifier of each k
	}
	return func(k int64) uint64 {
		id := next[k]
		next[k]++
		return id
	}
}

// encLoadBatch rows go in one prepared multi-row INSERT.
const encLoadBatch = 100

func (w *Workload) createEncTable(ctx context.Context, c engine.Conn, d encDialect, cipher *colenc.Cipher, src *randgen.Source, n int, suffix string, env workload.Env) error {
	o, e := w.opts, w.enc.spec
	if err := c.Exec(ctx, w.encTableDDL(d, n, suffix)); err != nil {
		return err
	}
	fmt.Fprintf(env.Log, "Inserting %d records into 'sbtest%d'\n", o.TableSize, n)
	enc, err := newRowEncoder(e, cipher, n, w.copies())
	if err != nil {
		return err
	}
	width := enc.width()
	// An ashe copy of an ore k takes its identifiers in k's order (which
	// the ore part reveals anyway), so a k range is one run of them: the
	// rows are drawn twice from one seed, first for k's ranks.
	var rank func(k int64) uint64
	if o.KSumCopy && e[colK] == colenc.Ore {
		ro := w.opts.Rand
		if ro.Seed == 0 { // both draws need the same seed
			ro.Seed = rand.Uint64()
		}
		rank = kRanks(randgen.New(ro, uint64(5000+n)), o.TableSize)
		src = randgen.New(ro, uint64(5000+n))
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + "), "
	rows := strings.TrimSuffix(strings.Repeat(tuple, encLoadBatch), ", ")
	batch, err := c.Prepare(ctx, fmt.Sprintf("INSERT INTO sbtest%d(%s) VALUES %s", n, enc.columnList(), rows))
	if err != nil {
		return err
	}
	args := make([]engine.Arg, 0, width*encLoadBatch)
	var cv, pv []byte
	for id := 1; id <= o.TableSize; id++ {
		var k int64
		cv, pv, k = drawRow(src, cv, pv, o.TableSize)
		// Loaded rows take identifiers 1..table-size in id order, so a
		// range of ids is a run of identifiers; later writes take theirs
		// from the counter in the config table, from freshAsheFrom.
		asheID := uint64(id)
		if rank != nil {
			asheID = rank(k)
		}
		row, err := enc.row(int64(id), k, cv, pv, asheID)
		if err != nil {
			return err
		}
		args = append(args, row[:width]...)
		if len(args) == cap(args) {
			if err := batch.Exec(args); err != nil {
				return err
			}
			args = args[:0]
		}
	}
	if len(args) > 0 {
		last, err := c.Prepare(ctx, fmt.Sprintf("INSERT INTO sbtest%d(%s) VALUES %s", n, enc.columnList(),
			strings.TrimSuffix(strings.Repeat(tuple, len(args)/width), ", ")))
		if err != nil {
			return err
		}
		if err := last.Exec(args); err != nil {
			return err
		}
	}
	return w.finishEncTable(ctx, c, d, n, env)
}

// encTableDDL is table n's CREATE TABLE with its columns' encrypted types
// and the copies and identifiers the spec keeps.
func (w *Workload) encTableDDL(d encDialect, n int, suffix string) string {
	e := w.enc.spec
	var defs [4]string
	for i, name := range sbColumns {
		defs[i] = e.sqlType(i, d.OreType, d.BinaryType) + " NOT NULL"
		if e[i] == colenc.Ore && d.OreType != "" && d.OreValueCheck != "" {
			defs[i] += " " + fmt.Sprintf(d.OreValueCheck, name)
		}
	}
	extra := ""
	if e[colK] == colenc.Ashe {
		extra = ",\n  " + asheIDColumn + " BIGINT NOT NULL"
	}
	if w.opts.KSumCopy {
		extra = ",\n  " + kSumColumn + " BIGINT NOT NULL,\n  " + kSumIDColumn + " BIGINT NOT NULL"
	}
	if w.kValueCopy() {
		extra = ",\n  " + kValueColumn + " " + d.OreDetType + " NOT NULL " + fmt.Sprintf(d.OreValueCheck, kValueColumn)
	}
	return fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k %s,\n  c %s,\n  pad %s%s,\n  PRIMARY KEY (id)\n) %s",
		n, defs[0], defs[1], defs[2], defs[3], extra, suffix)
}

// finishEncTable creates table n's secondary indexes and runs what the
// server does after a load.
func (w *Workload) finishEncTable(ctx context.Context, c engine.Conn, d encDialect, n int, env workload.Env) error {
	if w.opts.CreateSecondary {
		fmt.Fprintf(env.Log, "Creating a secondary index on 'sbtest%d'...\n", n)
		cols := "k"
		if w.opts.KSumCopy { // covering: a range sum reads the index only
			cols = "k, " + kSumColumn + ", " + kSumIDColumn
		}
		if err := c.Exec(ctx, fmt.Sprintf("CREATE INDEX k_%d ON sbtest%d(%s)", n, n, cols)); err != nil {
			return err
		}
		// Its entries are one per distinct k (deduplicated): a range sum
		// reads a few of them and counts row pointers.
		if w.kValueCopy() {
			if err := c.Exec(ctx, fmt.Sprintf("CREATE INDEX k_value_%d ON sbtest%d(%s)", n, n, kValueColumn)); err != nil {
				return err
			}
		}
	}
	if d.AfterLoad != "" {
		return c.Exec(ctx, fmt.Sprintf(d.AfterLoad, tableName(n)))
	}
	return nil
}
