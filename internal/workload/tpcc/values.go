package tpcc

import (
	"strconv"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// dec reads result values through the codec, keeping the first error.
type dec struct {
	k   *codec
	err error
}

func (d *dec) int(c *column, row, b []byte) int64 {
	v, err := d.k.GetInt(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) money(c *column, row, b []byte) int64 {
	v, err := d.k.GetDec(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) text(c *column, row, b []byte) string {
	v, err := d.k.GetText(c, row, b)
	d.keep(err)
	return v
}

func (d *dec) time(c *column, row, b []byte) string {
	v, err := d.k.GetTime(c, row, b)
	d.keep(err)
	return v
}

// count reads a server-side COUNT(*), which is never encrypted.
func (d *dec) count(b []byte) int64 {
	n, err := strconv.ParseInt(string(b), 10, 64)
	d.keep(err)
	return n
}

func (d *dec) keep(err error) {
	if d.err == nil {
		d.err = err
	}
}

// enc builds arguments through the codec, keeping the first error.
type enc struct {
	k   *codec
	err error
}

func (e *enc) int(c *column, row []byte, v int64) engine.Arg {
	a, err := e.k.Int(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) money(c *column, row []byte, v int64) engine.Arg {
	a, err := e.k.Dec(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) text(c *column, row []byte, v string) engine.Arg {
	a, err := e.k.Text(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) time(c *column, row []byte, v time.Time) engine.Arg {
	a, err := e.k.Time(c, row, v)
	e.keep(err)
	return a
}

func (e *enc) keep(err error) {
	if e.err == nil {
		e.err = err
	}
}
