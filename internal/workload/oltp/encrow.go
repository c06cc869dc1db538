package oltp

import (
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
)

// rowEncoder turns sbtest values into statement arguments for one table.
// A row's key (bound into its rnd values) is what identifies it without
// decryption: the id's text, its det ciphertext, or its ore identity block.
type rowEncoder struct {
	spec   encSpec
	cols   [4]colenc.Column
	fields [4]*colenc.Field // nil for plaintext columns
	sum    *colenc.Field    // k's ashe copy (--k-sum-copy), or nil
	value  *colenc.Field    // k's value-bound ore copy (--k-sum-by-value), or nil
	num    []byte
	// kOf caches what grouped k values (det, or the ore copy's identity
	// block and nonce) decrypt to: a range sum returns at most range-size
	// of them, mostly the same hot ones. Per worker, bounded.
	kOf map[string]int64
	// detCache: IN lists of range-size ids cost lookups, not AES-SIV runs.
	detCache [4]intCiphertexts
	// valueCT: a write of a k seen before costs a lookup, not an ORE
	// encryption of the value-bound copy.
	valueCT intCiphertexts
}

const detCacheMax = 1 << 17

func (r *rowEncoder) detInt(i int, v int64) ([]byte, error) {
	return r.detCache[i].encrypt(r.fields[i], v, detCacheMax)
}

// intCiphertexts caches a deterministic scheme's ciphertexts of integers
// (equal plaintexts, equal bytes, so a client may reuse them). Per worker,
// so no locks; it stops growing at its bound.
type intCiphertexts map[int64][]byte

func (c *intCiphertexts) encrypt(f *colenc.Field, v int64, bound int) ([]byte, error) {
	if ct, ok := (*c)[v]; ok {
		return ct, nil
	}
	ct, err := f.Encrypt(nil, colenc.Int(v))
	if err != nil {
		return nil, err
	}
	if *c == nil {
		*c = intCiphertexts{}
	}
	if len(*c) < bound {
		(*c)[v] = ct
	}
	return ct, nil
}

// kCopies are the extra copies of k a table keeps.
type kCopies struct{ sum, value bool }

func (w *Workload) copies() kCopies { return kCopies{sum: w.opts.KSumCopy, value: w.kValueCopy()} }

// newRowEncoder resolves the table's encrypted columns for one worker.
func newRowEncoder(e encSpec, c *colenc.Cipher, table int, copies kCopies) (*rowEncoder, error) {
	r := &rowEncoder{spec: e}
	if copies.sum {
		f, err := c.Field(colenc.Column{Table: tableName(table), Name: kSumColumn, Scheme: colenc.Ashe})
		if err != nil {
			return nil, err
		}
		r.sum = f
	}
	if copies.value {
		f, err := c.Field(colenc.Column{Table: tableName(table), Name: kValueColumn, Scheme: colenc.Ore})
		if err != nil {
			return nil, err
		}
		r.value = f
	}
	for i := range r.cols {
		r.cols[i] = e.column(table, i)
		if e[i] == "" {
			continue
		}
		f, err := c.Field(r.cols[i])
		if err != nil {
			return nil, err
		}
		r.fields[i] = f
	}
	return r, nil
}

// rowOf is the row key column i's values are bound to: the id is the
// row's key itself, so it is bound to no other row.
func (r *rowEncoder) rowOf(i int, row []byte) []byte {
	if i == colID {
		return nil
	}
	return row
}

// rowKey derives the row key from the id as the server stores it.
func (r *rowEncoder) rowKey(storedID []byte) ([]byte, error) {
	if r.spec[colID] == colenc.Ore {
		return colenc.OreIdentity(storedID)
	}
	return storedID, nil
}

// idLookup is the argument that finds id by equality or bounds a range on
// the server, and the row's key.
func (r *rowEncoder) idLookup(id int64) (engine.Arg, []byte, error) {
	switch r.spec[colID] {
	case "":
		r.num = strconv.AppendInt(r.num[:0], id, 10)
		return engine.Arg{Int: id}, r.num, nil
	case colenc.Ore:
		tok, err := r.fields[colID].Token(id)
		if err != nil {
			return engine.Arg{}, nil, err
		}
		key, err := colenc.OreIdentity(tok)
		return engine.Arg{Str: tok}, key, err
	}
	ct, err := r.detInt(colID, id)
	return engine.Arg{Str: ct}, ct, err
}

// bound is the argument for an equality or range bound on column i.
func (r *rowEncoder) bound(i int, v int64) (engine.Arg, error) {
	switch r.spec[i] {
	case "":
		return engine.Arg{Int: v}, nil
	case colenc.Ore:
		tok, err := r.fields[i].Token(v)
		return engine.Arg{Str: tok}, err
	}
	ct, err := r.detInt(i, v)
	return engine.Arg{Str: ct}, err
}

// bounds are the arguments of a range lo..hi on column i.
func (r *rowEncoder) bounds(i int, lo, hi int64) (a, b engine.Arg, err error) {
	if a, err = r.bound(i, lo); err == nil {
		b, err = r.bound(i, hi)
	}
	return a, b, err
}

// store is the argument that stores v in column i of the row with key row.
func (r *rowEncoder) store(i int, row []byte, v colenc.Value) (engine.Arg, error) {
	row = r.rowOf(i, row)
	if r.spec[i] == "" {
		if v.Kind == colenc.KindInt {
			return engine.Arg{Int: v.I}, nil
		}
		return engine.Arg{Str: []byte(v.S)}, nil
	}
	ct, err := r.fields[i].Encrypt(row, v)
	if err != nil {
		return engine.Arg{}, err
	}
	return engine.Arg{Str: ct}, nil
}

// asheIDColumn holds each ashe k's identifier (see colenc.Ashe).
const asheIDColumn = "k_id"

// width is the number of stored columns: id, k, c, pad and, with an ashe
// k, its identifier, or with k's ashe copy, the copy and its identifier.
func (r *rowEncoder) width() int {
	switch {
	case r.sum != nil:
		return 6
	case r.spec[colK] == colenc.Ashe, r.value != nil:
		return 5
	}
	return 4
}

// columnList names the stored columns in row's order.
func (r *rowEncoder) columnList() string {
	switch {
	case r.sum != nil:
		return "id, k, c, pad, " + kSumColumn + ", " + kSumIDColumn
	case r.spec[colK] == colenc.Ashe:
		return "id, k, c, pad, " + asheIDColumn
	case r.value != nil:
		return "id, k, c, pad, " + kValueColumn
	}
	return "id, k, c, pad"
}

// asheField is the field range sums decrypt: an ashe k or k's ashe copy.
func (r *rowEncoder) asheField() *colenc.Field {
	if r.sum != nil {
		return r.sum
	}
	return r.fields[colK]
}

// row is a whole new row's arguments (id, k, c, pad, and the identifier
// of an ashe k, or k's ashe copy and its identifier: fresh, never used
// before under this table's key); use row[:width()].
func (r *rowEncoder) row(id, k int64, c, pad []byte, asheID uint64) ([6]engine.Arg, error) {
	var out [6]engine.Arg
	var err error
	if out[colID], err = r.store(colID, nil, colenc.Int(id)); err != nil {
		return out, err
	}
	var key []byte
	if r.spec[colID] == "" {
		key = strconv.AppendInt(nil, id, 10)
	} else if key, err = r.rowKey(out[colID].Str); err != nil {
		return out, err
	}
	if r.spec[colK] == colenc.Ashe {
		var v int64
		v, err = r.fields[colK].AsheEncrypt(asheID, k)
		out[colK] = engine.Arg{Int: v}
		out[4] = engine.Arg{Int: int64(asheID)}
	} else {
		out[colK], err = r.store(colK, key, colenc.Int(k))
	}
	if err != nil {
		return out, err
	}
	if r.value != nil {
		ct, err := r.valueOf(k)
		if err != nil {
			return out, err
		}
		out[4] = engine.Arg{Str: ct}
	}
	if r.sum != nil {
		v, err := r.sum.AsheEncrypt(asheID, k)
		if err != nil {
			return out, err
		}
		out[4], out[5] = engine.Arg{Int: v}, engine.Arg{Int: int64(asheID)}
	}
	if out[colC], err = r.store(colC, key, colenc.Text(string(c))); err != nil {
		return out, err
	}
	out[colPad], err = r.store(colPad, key, colenc.Text(string(pad)))
	return out, err
}

// intOf reads column i's stored value (text or ciphertext) as an integer.
func (r *rowEncoder) intOf(i int, row, v []byte) (int64, error) {
	if r.spec[i] == "" {
		return strconv.ParseInt(string(v), 10, 64)
	}
	x, err := r.fields[i].Decrypt(r.rowOf(i, row), v)
	return r.asInt(i, x, err)
}

func (r *rowEncoder) asInt(i int, x colenc.Value, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	if x.Kind != colenc.KindInt {
		return 0, fmt.Errorf("%s.%s holds a %c value, not an integer", r.cols[i].Table, r.cols[i].Name, x.Kind)
	}
	return x.I, nil
}

// textOf reads column i's stored value as text (CHAR values as the server
// returns them; PostgreSQL pads CHAR(n) with spaces).
func (r *rowEncoder) textOf(i int, row, v []byte) (string, error) {
	if r.spec[i] == "" {
		return string(v), nil
	}
	x, err := r.fields[i].Decrypt(row, v)
	if err != nil {
		return "", err
	}
	if x.Kind != colenc.KindText {
		return "", fmt.Errorf("%s.%s holds a %c value, not text", r.cols[i].Table, r.cols[i].Name, x.Kind)
	}
	return x.S, nil
}

// checkText checks that column i's stored value is text of this row, as a
// read does that only proves it could decrypt: plaintext is compared
// with nothing, and the Field's scratch holds it, so nothing is allocated.
func (r *rowEncoder) checkText(i int, row, v []byte) error {
	if r.spec[i] == "" {
		return nil
	}
	kind, _, err := r.fields[i].Open(row, v)
	if err == nil && kind != colenc.KindText {
		err = fmt.Errorf("%s.%s holds a %c value, not text", r.cols[i].Table, r.cols[i].Name, kind)
	}
	return err
}

// asheK decrypts an ashe k and its identifier, both read as text.
func (r *rowEncoder) asheK(id, v []byte) (int64, error) {
	x, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ashe value %q: %w", v, err)
	}
	n, err := strconv.ParseUint(string(id), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ashe identifier %q: %w", id, err)
	}
	return r.asheField().AsheDecrypt(n, x)
}

// valueBounds are a k range's bounds on the value-bound copy.
func (r *rowEncoder) valueBounds(lo, hi int64) (a, b engine.Arg, err error) {
	if a.Str, err = r.value.Token(lo); err == nil {
		b.Str, err = r.value.Token(hi)
	}
	return a, b, err
}

// Cache bounds per worker and table: sysbench's special distribution puts
// most draws on 1% of the values, so a few thousand cover them, and 32
// workers x 4 tables stay within tens of megabytes.
const (
	kOfMax     = 4096
	valueCTMax = 1024 // 430-byte values
)

// groupedK decrypts a k that a range sum grouped by: the ore copy (read
// whole: its MAC is checked) or a det k. A hit is the same bytes that
// decrypted before, so it needs no second check.
func (r *rowEncoder) groupedK(v []byte) (int64, error) {
	if k, ok := r.kOf[string(v)]; ok {
		return k, nil
	}
	var k int64
	var err error
	if r.value != nil {
		var x colenc.Value
		x, err = r.value.DecryptOre(nil, v)
		k, err = r.asInt(colK, x, err)
	} else {
		k, err = r.intOf(colK, nil, v)
	}
	if err != nil {
		return 0, err
	}
	if r.kOf == nil {
		r.kOf = map[string]int64{}
	}
	if len(r.kOf) < kOfMax {
		r.kOf[string(v)] = k
	}
	return k, nil
}

// valueOf is k's value-bound copy (bound to no row: equal k, equal bytes).
func (r *rowEncoder) valueOf(k int64) ([]byte, error) {
	return r.valueCT.encrypt(r.value, k, valueCTMax)
}
