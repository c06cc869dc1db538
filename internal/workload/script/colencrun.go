package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
	"github.com/encbench/encbench/internal/workload/script/lang"
)

// proofRows are the rows of each encrypted column the proof reads raw.
const proofRows = 20

// fields are one worker's encryption: a Field per encrypted column.
type fields struct {
	cipher *colenc.Cipher
	byCol  map[column]*colenc.Field
}

func (w *Workload) openFields() (*fields, error) {
	c, err := colenc.Open(w.o.Keys)
	if err != nil {
		return nil, fmt.Errorf("opening the column keys (--master-key-file, --keyset): %w", err)
	}
	f := &fields{cipher: c, byCol: map[column]*colenc.Field{}}
	for _, col := range w.enc.columns() {
		if f.byCol[col], err = c.Field(col.ref()); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// queryFields resolve a statement's encryption to this worker's fields:
// one per parameter and one per result column (nil: plaintext).
func (f *fields) queryFields(e *statementEnc, st engine.Stmt) (params, results []*colenc.Field) {
	if e == nil {
		return nil, nil
	}
	params = make([]*colenc.Field, len(e.params))
	for i, c := range e.params {
		if c != nil {
			params[i] = f.byCol[*c]
		}
	}
	if d, ok := st.(engine.Described); ok && len(e.results) > 0 {
		results = make([]*colenc.Field, len(d.Columns()))
		for i, name := range d.Columns() {
			if c, ok := e.results[strings.ToLower(name)]; ok {
				results[i] = f.byCol[c]
			}
		}
	}
	return params, results
}

// plaintext is a variable's value as the column layer encrypts it:
// integers as integers (text that reads as one too, so a value read back
// by \gset matches what prepare stored), anything else as its text.
func plaintext(v lang.Value) colenc.Value {
	if n, err := lang.AsInt(v); err == nil && (v.Kind == lang.Int || v.Kind == lang.Text) {
		return colenc.Int(n)
	}
	return colenc.Text(v.String())
}

// decrypted is a stored value's plaintext as a variable.
func decrypted(v colenc.Value) lang.Value {
	if v.Kind == colenc.KindInt {
		return lang.IntValue(v.I)
	}
	return lang.Value{Kind: lang.Text, S: []byte(v.String())}
}

// proveColumns reads stored values of every encrypted column raw: each
// must decrypt under the keyset as a ciphertext of its column.
func (w *Workload) proveColumns(ctx context.Context, c engine.Conn, t engine.Target) (*workload.ColencProof, error) {
	f, err := w.openFields()
	if err != nil {
		return nil, err
	}
	p := &workload.ColencProof{Name: "enc(" + w.enc.String() + ")",
		Source: fmt.Sprintf("up to %d stored values of each encrypted column read raw and decrypted in the client", proofRows)}
	tables := map[string]bool{}
	for _, col := range w.enc.columns() {
		p.Columns = append(p.Columns, workload.ColencColumn{Table: col.table, Column: col.name, Scheme: string(col.ref().Scheme)})
		if !tables[col.table] {
			tables[col.table] = true
			n, err := columnCount(ctx, c, col.table)
			if err != nil {
				return nil, err
			}
			p.BusinessColumns += n
		}
		st, err := c.Prepare(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL LIMIT %d", col.name, col.table, col.name, proofRows))
		if err != nil {
			return nil, fmt.Errorf("proof of column encryption: reading %s.%s: %w", col.table, col.name, err)
		}
		field := f.byCol[col]
		err = st.Query(nil, func(v [][]byte) error {
			p.Checked++
			if _, err := field.Decrypt(nil, v[0]); err != nil {
				return fmt.Errorf("%s.%s holds a value that is not its ciphertext under this keyset (prepare with the same --encrypt and keys): %w", col.table, col.name, err)
			}
			p.Ciphertext++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if p.BusinessColumns > 0 {
		p.SharePct = 100 * float64(len(p.Columns)) / float64(p.BusinessColumns)
	}
	p.Level = max(1, int(p.SharePct+0.5))
	names := make([]string, 0, len(tables))
	for tb := range tables {
		names = append(names, tb)
	}
	p.Storage, err = workload.ReadTableStorage(ctx, c, t.Engine.Dialect(), names)
	return p, err
}

// columnCount is the table's number of columns, as the server describes
// a statement that reads them all.
func columnCount(ctx context.Context, c engine.Conn, table string) (int, error) {
	st, err := c.Prepare(ctx, "SELECT * FROM "+table+" WHERE 1 = 0")
	if err != nil {
		return 0, fmt.Errorf("table %s is not there (prepare it first): --encrypt names its columns: %w", table, err)
	}
	d, ok := st.(engine.Described)
	if !ok || len(d.Columns()) == 0 {
		return 0, fmt.Errorf("the server did not describe the columns of %s", table)
	}
	return len(d.Columns()), nil
}
