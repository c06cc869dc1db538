package oltp

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

const encProofRows = 5

// ProveColumns checks the tables were prepared as --encrypt says (spec,
// size, keyset) and reads rows of every table raw: each encrypted value must
// decrypt as a ciphertext of its column and row, ore values must carry the
// left part of what they decrypt to, plaintext values must read as plaintext.
// The proof also says where the predicate runs on a server of dialect d.
func (w *Workload) ProveColumns(ctx context.Context, c engine.Conn, t engine.Target) (*workload.ColencProof, error) {
	d, err := newEncDialect(t)
	if err != nil && isEnc(w.name) {
		return nil, err
	}
	// Refused here, on the one admin connection, before any worker
	// connects: a refusal from every worker at once would race their
	// connections being cut off.
	if isEnc(w.name) {
		if err := w.validateEnc(d); err != nil {
			return nil, err
		}
	}
	p, err := w.proveColumns(ctx, c)
	if p == nil || err != nil {
		return p, err
	}
	p.Predicate = w.enc.spec.predicates(w.name, d.OreType)
	p.Storage, err = workload.ReadTableStorage(ctx, c, d.Dialect, w.tableNames())
	return p, err
}

func (w *Workload) proveColumns(ctx context.Context, c engine.Conn) (*workload.ColencProof, error) {
	if !isEnc(w.name) {
		return nil, nil
	}
	if err := w.checkEncConfig(ctx, c); err != nil {
		return nil, err
	}
	if !w.enc.spec.any() {
		// plaintext, measured like the encrypted variants for their storage
		return &workload.ColencProof{BusinessColumns: len(sbColumns), Source: "no column encrypted"}, nil
	}
	cipher, err := w.dataCipher(ctx, c)
	if err != nil {
		return nil, err
	}
	e := w.enc.spec
	p := &workload.ColencProof{BusinessColumns: len(sbColumns),
		Source: fmt.Sprintf("%d rows of each table read raw and decrypted in the client", encProofRows)}
	for i, sc := range e {
		if sc != "" {
			p.Columns = append(p.Columns, workload.ColencColumn{Table: "sbtestN", Column: sbColumns[i], Scheme: string(sc)})
		}
	}
	p.Level = 100 * len(p.Columns) / len(sbColumns)
	p.SharePct = float64(p.Level)
	p.Name = "enc(" + w.encSpecText() + ")"
	if w.opts.KSumCopy {
		p.Columns = append(p.Columns, workload.ColencColumn{Table: "sbtestN", Column: kSumColumn, Scheme: string(colenc.Ashe), Copy: true})
	}
	if w.kValueCopy() {
		p.Columns = append(p.Columns, workload.ColencColumn{Table: "sbtestN", Column: kValueColumn, Scheme: string(colenc.OreDet), Copy: true})
	}
	for t := 1; t <= w.opts.Tables; t++ {
		enc, err := newRowEncoder(e, cipher, t, w.copies())
		if err != nil {
			return nil, err
		}
		st, err := c.Prepare(ctx, fmt.Sprintf("SELECT %s FROM %s LIMIT %d", enc.columnList(), tableName(t), encProofRows))
		if err != nil {
			return nil, fmt.Errorf("proof of column encryption: %w", err)
		}
		err = st.Query(nil, func(v [][]byte) error { return w.proveRow(p, enc, t, v) })
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// proveRow checks one stored row of table t: every column holds what the
// spec says (decrypting as its column and row), and the copies hold k.
func (w *Workload) proveRow(p *workload.ColencProof, enc *rowEncoder, t int, v [][]byte) error {
	e := w.enc.spec
	id, err := enc.intOf(colID, nil, v[0])
	if err != nil {
		return fmt.Errorf("%s.id does not hold what --encrypt %s says: %w", tableName(t), e, err)
	}
	key := v[0]
	if e[colID] != "" {
		if key, err = enc.rowKey(v[0]); err != nil {
			return err
		}
	}
	for i := range sbColumns {
		p.Checked++
		if err := proveValue(enc, i, id, key, v); err != nil {
			return fmt.Errorf("%s.%s does not hold what --encrypt %s says: %w", tableName(t), sbColumns[i], e, err)
		}
		if e[i] != "" {
			p.Ciphertext++
		}
	}
	if enc.value != nil {
		p.Checked++
		if err := proveValueCopy(enc, key, v); err != nil {
			return fmt.Errorf("%s.%s does not hold k: %w", tableName(t), kValueColumn, err)
		}
		p.Ciphertext++
	}
	if enc.sum != nil {
		p.Checked++
		k, err := enc.intOf(colK, key, v[colK])
		if err != nil {
			return err
		}
		if sum, err := enc.asheK(v[5], v[4]); err != nil || sum != k {
			return fmt.Errorf("%s.%s does not hold k (%d): %d, %v", tableName(t), kSumColumn, k, sum, err)
		}
		p.Ciphertext++
	}
	return nil
}

// proveValueCopy: the copy decrypts (bound to no row) to the row's k, its
// left part orders that k, and it is the same bytes a fresh encryption of
// k writes (value-bound: what lets the server's index keep one entry per
// value).
func proveValueCopy(enc *rowEncoder, key []byte, row [][]byte) error {
	k, err := enc.intOf(colK, key, row[colK])
	if err != nil {
		return err
	}
	stored := row[4]
	if len(stored) != colenc.OreValueLen {
		return fmt.Errorf("holds %d bytes, not an ore value's %d", len(stored), colenc.OreValueLen)
	}
	x, err := enc.value.DecryptOre(nil, stored)
	if err != nil {
		return err
	}
	if x.I != k {
		return fmt.Errorf("decrypts to %d, k is %d", x.I, k)
	}
	if err := enc.value.Check(k, stored); err != nil {
		return err
	}
	fresh, err := enc.value.Encrypt(nil, colenc.Int(k))
	if err != nil {
		return err
	}
	if !bytes.Equal(fresh, stored) {
		return fmt.Errorf("is not k's value-bound ciphertext (another key, or bound to a row)")
	}
	return nil
}

func proveValue(enc *rowEncoder, i int, id int64, key []byte, row [][]byte) error {
	v := row[i]
	if enc.spec[i] == "" {
		if i == colC || i == colPad {
			if strings.Count(string(v), "-") < 4 {
				return fmt.Errorf("%q is not sysbench's plaintext", v)
			}
			return nil
		}
		_, err := enc.intOf(i, key, v)
		return err
	}
	if i == colC || i == colPad {
		s, err := enc.textOf(i, key, v)
		if err == nil && strings.Count(s, "-") < 4 {
			err = fmt.Errorf("decrypts to %q, not sysbench's text", s)
		}
		return err
	}
	if enc.spec[i] == colenc.Ashe {
		k, err := enc.asheK(row[4], v)
		if err == nil && (k < 1 || k > 1<<40) {
			err = fmt.Errorf("decrypts to %d, not a k of this table", k)
		}
		return err
	}
	n, err := enc.intOf(i, key, v)
	if err != nil {
		return err
	}
	if i == colID && n != id {
		return fmt.Errorf("id decrypts to %d twice differently", n)
	}
	if enc.spec[i] == colenc.Ore {
		return enc.fields[i].Check(n, v)
	}
	return nil
}

// encSchema describes the enc tables for reports.
func (w *Workload) encSchema(idx string) string {
	o, e := w.opts, w.enc.spec
	var cols []string
	for i, c := range sbColumns {
		t := e.sqlType(i, "ore", func(int) string { return "binary" })
		if e[i] != "" {
			t += " (" + string(e[i]) + ")"
		}
		cols = append(cols, c+" "+t)
	}
	if o.KSumCopy {
		cols = append(cols, kSumColumn+" BIGINT (ashe copy of k)", kSumIDColumn+" BIGINT (its identifier, in k's order for an ore k)")
	}
	if w.kValueCopy() {
		cols = append(cols, kValueColumn+" ore_det (ore copy of k bound to the column only: equal k, equal bytes; its index holds one entry per value)")
	}
	return fmt.Sprintf("%d tables sbtest1..sbtest%d, %d rows each of sysbench 1.0.20's data: %s, PRIMARY KEY (id); %s. "+
		"Encrypted in the client: %s; rnd values are bound to their row (by the id's text, det ciphertext or ore identity block).",
		o.Tables, o.Tables, o.TableSize, strings.Join(cols, ", "), idx, e)
}
