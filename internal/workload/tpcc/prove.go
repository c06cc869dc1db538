package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// proofRows is how many rows of each table the proof reads.
const proofRows = 5

// ProveColumns reads a few rows of every table raw from the server: each
// encrypted column's values must decrypt as ciphertexts of that column and
// row under the keyset, and each plaintext column's values must read as
// plaintext of their type.
func (w *Workload) ProveColumns(ctx context.Context, c engine.Conn, t engine.Target) (*workload.ColencProof, error) {
	p, err := w.prove(ctx, c, func(*table) int { return proofRows })
	if err != nil {
		return nil, err
	}
	names := make([]string, len(w.s.tables))
	for i, t := range w.s.tables {
		names[i] = t.name
	}
	p.Storage, err = workload.ReadTableStorage(ctx, c, t.Engine.Dialect(), names)
	return p, err
}

// wholeTables are read entirely by check's decryption condition: the small
// ones and those every transaction writes; the rest are sampled.
var wholeTables = map[string]bool{"warehouse": true, "district": true, "orders": true, "new_order": true, "history": true}

const checkSample = 2000

// prove reads up to limit(t) rows of each table (0: all of them).
func (w *Workload) prove(ctx context.Context, c engine.Conn, limit func(*table) int) (*workload.ColencProof, error) {
	cipher, err := w.keys()
	if err != nil {
		return nil, err
	}
	k, err := newCodec(w.s, w.o.Level, cipher)
	if err != nil {
		return nil, err
	}
	cols, business := w.s.encrypted(w.o.Level)
	p := &workload.ColencProof{Level: w.o.Level, BusinessColumns: business,
		SharePct: float64(int(float64(len(cols))*1000/float64(business))) / 10,
		Source:   fmt.Sprintf("%d rows of each table read raw and decrypted in the client", proofRows)}
	for _, c := range cols {
		p.Columns = append(p.Columns, workload.ColencColumn{Table: c.Table, Column: c.Column, Scheme: string(c.Scheme)})
	}
	for _, t := range w.s.tables {
		names := make([]string, len(t.cols))
		byName := map[string]int{}
		for i, col := range t.cols {
			names[i] = col.name
			byName[col.name] = i
		}
		sql := fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", strings.Join(names, ", "), t.name, t.rowKey)
		if n := limit(t); n > 0 {
			sql += fmt.Sprintf(" LIMIT %d", n)
		}
		st, err := c.Prepare(ctx, sql)
		if err != nil {
			return nil, fmt.Errorf("proof of column encryption: %w", err)
		}
		err = st.Query(nil, func(v [][]byte) error {
			var ids []int64
			for _, kc := range strings.Split(t.rowKey, ", ") {
				id, err := k.GetInt(t.cols[byName[kc]], nil, v[byName[kc]])
				if err != nil {
					return fmt.Errorf("row key %s.%s: %w", t.name, kc, err)
				}
				ids = append(ids, id)
			}
			for i, col := range t.cols {
				if col.level == 0 || v[i] == nil {
					continue
				}
				p.Checked++
				if err := readAs(k, col, k.key(ids...), v[i]); err != nil {
					return fmt.Errorf("%s.%s does not hold what --encrypt-columns %d says: %w", t.name, col.name, w.o.Level, err)
				}
				if k.on(col) {
					p.Ciphertext++
				}
			}
			return nil
		})
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

func readAs(k *codec, c *column, row, b []byte) error {
	var err error
	switch c.kind {
	case colenc.KindInt:
		_, err = k.GetInt(c, row, b)
	case colenc.KindDecimal:
		_, err = k.GetDec(c, row, b)
	case colenc.KindText:
		_, err = k.GetText(c, row, b)
	case colenc.KindTime:
		_, err = k.GetTime(c, row, b)
	}
	return err
}
