package tpcc

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
)

// codec turns values into statement arguments and result bytes back into
// values, encrypting the columns the level encrypts. One per worker.
type codec struct {
	enc    []bool          // by column index
	fields []*colenc.Field // by column index; nil where not encrypted
	row    []byte
}

func newCodec(s *schema, level int, cipher *colenc.Cipher) (*codec, error) {
	k := &codec{enc: make([]bool, s.numCols()), fields: make([]*colenc.Field, s.numCols())}
	for _, t := range s.tables {
		for _, c := range t.cols {
			if k.enc[c.idx] = c.level > 0 && c.level <= level; !k.enc[c.idx] {
				continue
			}
			f, err := cipher.Field(colenc.Column{Table: t.name, Name: c.name, Scheme: c.scheme})
			if err != nil {
				return nil, err
			}
			k.fields[c.idx] = f
		}
	}
	return k, nil
}

// on says whether the column is encrypted at this level.
func (k *codec) on(c *column) bool { return k.enc[c.idx] }

// key builds a row key from the row's identifying numbers, in a buffer
// that is reused: encrypt or decrypt with it before building the next.
func (k *codec) key(ids ...int64) []byte {
	k.row = AppendRowKey(k.row[:0], ids...)
	return k.row
}

// AppendRowKey is the associated data that binds a randomized ciphertext to
// its row: the plaintext numbers of the table's row key (for example
// warehouse, district, customer), 8 bytes big-endian each.
func AppendRowKey(dst []byte, ids ...int64) []byte {
	for _, id := range ids {
		dst = binary.BigEndian.AppendUint64(dst, uint64(id))
	}
	return dst
}

func (k *codec) seal(c *column, row []byte, v colenc.Value) (engine.Arg, error) {
	ct, err := k.fields[c.idx].Encrypt(row, v)
	if err != nil {
		return engine.Arg{}, err
	}
	return engine.Arg{Str: ct}, nil
}

func (k *codec) Int(c *column, row []byte, v int64) (engine.Arg, error) {
	if !k.enc[c.idx] {
		return engine.Arg{Int: v}, nil
	}
	return k.seal(c, row, colenc.Int(v))
}

// Dec takes a decimal in units of 10^-scale (cents for money).
func (k *codec) Dec(c *column, row []byte, units int64) (engine.Arg, error) {
	if !k.enc[c.idx] {
		return engine.Arg{Str: []byte(colenc.Decimal(units, c.scale).String())}, nil
	}
	return k.seal(c, row, colenc.Decimal(units, c.scale))
}

func (k *codec) Text(c *column, row []byte, s string) (engine.Arg, error) {
	if !k.enc[c.idx] {
		return engine.Arg{Str: []byte(s)}, nil
	}
	return k.seal(c, row, colenc.Text(s))
}

func (k *codec) Time(c *column, row []byte, t time.Time) (engine.Arg, error) {
	if !k.enc[c.idx] {
		return engine.Arg{Str: []byte(t.UTC().Format("2006-01-02 15:04:05.000000"))}, nil
	}
	return k.seal(c, row, colenc.Timestamp(t))
}

func (k *codec) open(c *column, row, b []byte, want colenc.Kind) (colenc.Value, error) {
	v, err := k.fields[c.idx].Decrypt(row, b)
	if err != nil {
		return v, err
	}
	if v.Kind != want {
		return v, fmt.Errorf("%s.%s holds a %c value, not %c", c.table.name, c.name, v.Kind, want)
	}
	return v, nil
}

// GetInt reads an integer column's value from a result row.
func (k *codec) GetInt(c *column, row, b []byte) (int64, error) {
	if !k.enc[c.idx] {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s.%s: %w", c.table.name, c.name, err)
		}
		return n, nil
	}
	v, err := k.open(c, row, b, colenc.KindInt)
	return v.I, err
}

// GetDec reads a decimal column in units of 10^-scale.
func (k *codec) GetDec(c *column, row, b []byte) (int64, error) {
	if !k.enc[c.idx] {
		return parseUnits(b, c.scale)
	}
	v, err := k.open(c, row, b, colenc.KindDecimal)
	return v.I, err
}

func (k *codec) GetText(c *column, row, b []byte) (string, error) {
	if !k.enc[c.idx] {
		return string(b), nil
	}
	v, err := k.open(c, row, b, colenc.KindText)
	return v.S, err
}

// GetTime decrypts an encrypted timestamp; plaintext ones stay as the
// server's text, since no transaction computes with them.
func (k *codec) GetTime(c *column, row, b []byte) (string, error) {
	if !k.enc[c.idx] || b == nil {
		return string(b), nil
	}
	v, err := k.open(c, row, b, colenc.KindTime)
	return v.String(), err
}

// parseUnits reads "-12.3" as -1230 at scale 2 without floating point.
func parseUnits(b []byte, scale uint8) (int64, error) {
	var n int64
	neg, frac, seen := false, -1, false
	for i, ch := range b {
		switch {
		case ch == '-' && i == 0:
			neg = true
		case ch == '.' && frac < 0:
			frac = 0
		case ch >= '0' && ch <= '9':
			if frac >= int(scale) {
				continue // more digits than the column keeps: truncated
			}
			n = n*10 + int64(ch-'0')
			seen = true
			if frac >= 0 {
				frac++
			}
		default:
			return 0, fmt.Errorf("not a decimal: %q", b)
		}
	}
	if !seen {
		return 0, fmt.Errorf("not a decimal: %q", b)
	}
	for frac = max(frac, 0); frac < int(scale); frac++ {
		n *= 10
	}
	if neg {
		n = -n
	}
	return n, nil
}
