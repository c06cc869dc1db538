package mysql

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/encbench/encbench/internal/engine"
)

// script plays the server's side of the protocol over a pipe: each step
// reads the client's command and answers with packets. Byte layouts follow
// the MariaDB and MySQL protocol documentation, not encbench's code.
type script struct {
	t   *testing.T
	nc  net.Conn
	seq byte
}

func pipeConn(t *testing.T, deprecateEOF, cacheMeta bool) (*conn, *script) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	c := newConn(nil, session{nc: client, deprecateEOF: deprecateEOF, cacheMeta: cacheMeta})
	return c, &script{t: t, nc: server}
}

// command reads one command packet (sequence 0) and returns its payload.
func (s *script) command() []byte {
	var h [4]byte
	if _, err := io.ReadFull(s.nc, h[:]); err != nil {
		s.t.Errorf("server read: %v", err)
		return nil
	}
	if h[3] != 0 {
		s.t.Errorf("command sequence %d, want 0", h[3])
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(s.nc, p); err != nil {
		s.t.Errorf("server read: %v", err)
	}
	s.seq = 1
	return p
}

func (s *script) send(payloads ...[]byte) {
	for _, p := range payloads {
		h := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), s.seq}
		s.seq++
		if _, err := s.nc.Write(append(h, p...)); err != nil {
			s.t.Errorf("server write: %v", err)
		}
	}
}

func ok(status uint16) []byte { return []byte{0x00, 0, 0, byte(status), byte(status >> 8), 0, 0} }

// eofOK ends a result set when CLIENT_DEPRECATE_EOF is on.
func eofOK(status uint16) []byte { return []byte{0xfe, 0, 0, byte(status), byte(status >> 8), 0, 0} }

func columnDef(name string, typ byte, flags uint16, decimals byte) []byte {
	var b []byte
	for _, s := range []string{"def", "sbtest", "t", "t", name, name} {
		b = append(append(b, byte(len(s))), s...)
	}
	b = append(b, 0x0c, 63, 0, 0, 1, 0, 0, typ, byte(flags), byte(flags>>8), decimals, 0, 0)
	return b
}

func prepareOK(id uint32, cols, params int) []byte {
	b := []byte{0x00}
	b = binary.LittleEndian.AppendUint32(b, id)
	b = append(b, byte(cols), byte(cols>>8), byte(params), byte(params>>8), 0, 0, 0)
	return b
}

func errPacket(code uint16, state, msg string) []byte {
	b := []byte{0xff, byte(code), byte(code >> 8), '#'}
	return append(append(b, state...), msg...)
}

// run runs f as the client while the script's steps run here.
func run(t *testing.T, f func() error, steps func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	steps()
	return <-done
}

func prepared(t *testing.T, c *conn, s *script, sql string, cols [][]byte, params int) *stmt {
	t.Helper()
	var st engine.Stmt
	err := run(t, func() (err error) { st, err = c.Prepare(context.Background(), sql); return }, func() {
		if got := s.command(); got[0] != comStmtPrepare || string(got[1:]) != sql {
			t.Errorf("prepare sent %q", got)
		}
		s.send(prepareOK(7, len(cols), params))
		for range params {
			s.send(columnDef("?", typeLonglong, 0, 0))
		}
		s.send(cols...)
	})
	if err != nil {
		t.Fatal(err)
	}
	return st.(*stmt)
}

func TestExecuteSendsTypesOnlyWhenTheyChange(t *testing.T) {
	c, s := pipeConn(t, true, true)
	st := prepared(t, c, s, "UPDATE t SET c = ? WHERE id = ?", nil, 2)
	want := []struct {
		args []engine.Arg
		body string // after id, flags and iteration count
	}{
		{[]engine.Arg{{Str: []byte("ab")}, {Int: 5}}, "\x00\x01\xfe\x00\x08\x00\x02ab\x05\x00\x00\x00\x00\x00\x00\x00"},
		{[]engine.Arg{{Str: []byte("cd")}, {Int: -1}}, "\x00\x00\x02cd\xff\xff\xff\xff\xff\xff\xff\xff"},
		{[]engine.Arg{{Null: true}, {Int: 2}}, "\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00"},
		{[]engine.Arg{{Int: 3}, {Int: 2}}, "\x00\x01\x08\x00\x08\x00\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"},
	}
	for i, w := range want {
		err := run(t, func() error { return st.Exec(w.args) }, func() {
			got := s.command()
			head := []byte{comStmtExecute, 7, 0, 0, 0, 0, 1, 0, 0, 0}
			if !bytes.HasPrefix(got, head) || string(got[len(head):]) != w.body {
				t.Errorf("execute %d sent % x, want % x then % x", i, got, head, w.body)
			}
			s.send(ok(0))
		})
		if err != nil {
			t.Fatalf("execute %d: %v", i, err)
		}
	}
}

func TestBinaryRowsAsText(t *testing.T) {
	c, s := pipeConn(t, true, true)
	cols := [][]byte{
		columnDef("tiny", typeTiny, 0, 0), columnDef("utiny", typeTiny, 0x20, 0),
		columnDef("long", typeLong, 0, 0), columnDef("ull", typeLonglong, 0x20, 0),
		columnDef("dbl", typeDouble, 0, 31), columnDef("dt", typeDatetime, 0, 6),
		columnDef("d", typeDate, 0, 0), columnDef("tm", typeTime, 0, 0),
		columnDef("s", typeString, 0, 0), columnDef("n", 253, 0, 0),
	}
	st := prepared(t, c, s, "SELECT * FROM t", cols, 0)
	row := []byte{0x00, 0x00, 0x08} // column 9 (bit 11) is NULL
	row = append(row, 0xfe, 0xfe)
	row = binary.LittleEndian.AppendUint32(row, uint32(0xfffffff6)) // -10
	row = binary.LittleEndian.AppendUint64(row, math.MaxUint64)
	row = binary.LittleEndian.AppendUint64(row, math.Float64bits(2.5))
	row = append(row, 11, 0xea, 0x07, 11, 26, 9, 5, 7)
	row = binary.LittleEndian.AppendUint32(row, 1234)
	row = append(row, 4, 0xea, 0x07, 1, 2)
	row = append(row, 8, 1, 1, 0, 0, 0, 3, 4, 5)
	row = append(row, 3, 'a', 'b', 'c')
	var got []string
	err := run(t, func() error {
		return st.Query(nil, func(v [][]byte) error {
			for _, x := range v {
				if x == nil {
					got = append(got, "NULL")
				} else {
					got = append(got, string(x))
				}
			}
			return nil
		})
	}, func() {
		s.command()
		s.send([]byte{10, 0}, row, eofOK(0))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "-2 254 -10 18446744073709551615 2.5 2026-11-26 09:05:07.001234 2026-01-02 -27:04:05 abc NULL"
	if strings.Join(got, " ") != want {
		t.Errorf("row = %q\nwant  %q", strings.Join(got, " "), want)
	}
}

func TestErrorReplyKeepsTheSession(t *testing.T) {
	c, s := pipeConn(t, false, false) // EOF packets, metadata with every result
	err := run(t, func() error { return c.Exec(context.Background(), "DELETE FROM t") }, func() {
		s.command()
		s.send(errPacket(1213, "40001", "Deadlock found"))
	})
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1213 || string(me.SQLState[:]) != "40001" || me.Message != "Deadlock found" {
		t.Fatalf("error = %#v", err)
	}
	if k := (Engine{}).ClassifyError(err).Kind; k != engine.ErrDeadlock {
		t.Errorf("deadlock classified as %v", k)
	}
	var rows [][]string
	err = run(t, func() (err error) { rows, err = c.Query(context.Background(), "SELECT 1, NULL"); return }, func() {
		s.command()
		s.send([]byte{2}, columnDef("1", typeLonglong, 0, 0), columnDef("NULL", typeNull, 0, 0),
			[]byte{0xfe, 0, 0, 0, 0}, // EOF after the columns
			[]byte{1, '1', 0xfb}, []byte{0xfe, 0, 0, 0, 0})
	})
	if err != nil || len(rows) != 1 || rows[0][0] != "1" || rows[0][1] != "" {
		t.Fatalf("after an error: rows %q, err %v", rows, err)
	}
}

func TestRowErrorReadsTheRestOfTheReply(t *testing.T) {
	c, s := pipeConn(t, true, true)
	st := prepared(t, c, s, "SELECT c FROM t", [][]byte{columnDef("c", typeString, 0, 0)}, 0)
	stop := errors.New("enough")
	reply := func() {
		s.command()
		s.send([]byte{1, 0}, []byte{0, 0, 1, 'x'}, []byte{0, 0, 1, 'y'}, eofOK(0))
	}
	err := run(t, func() error { return st.Query(nil, func([][]byte) error { return stop }) }, reply)
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the row function's", err)
	}
	if err := run(t, func() error { return st.Exec(nil) }, reply); err != nil {
		t.Fatalf("next execute: %v", err)
	}
}

func TestLongPacketsSplitAndJoin(t *testing.T) {
	c, s := pipeConn(t, true, true)
	st := prepared(t, c, s, "SELECT ?", [][]byte{columnDef("v", 251, 0, 0)}, 1)
	big := bytes.Repeat([]byte{'z'}, maxPayload+10)
	var got int
	err := run(t, func() error {
		return st.Query([]engine.Arg{{Str: big}}, func(v [][]byte) error { got = len(v[0]); return nil })
	}, func() {
		// The client's command arrives as a full packet and a short one.
		var h [4]byte
		n, seq := 0, byte(0)
		for ; ; seq++ {
			if _, err := io.ReadFull(s.nc, h[:]); err != nil || h[3] != seq {
				t.Errorf("packet %d: header % x, %v", seq, h, err)
				return
			}
			k := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
			if _, err := io.CopyN(io.Discard, s.nc, int64(k)); err != nil {
				t.Error(err)
			}
			n += k
			if k < maxPayload {
				break
			}
		}
		if want := 1 + 4 + 1 + 4 + 1 + 1 + 2 + 9 + len(big); n != want {
			t.Errorf("command of %d bytes, want %d", n, want)
		}
		s.seq = seq + 1
		row := append([]byte{0, 0}, appendLenEnc(nil, uint64(len(big)))...)
		row = append(row, big...)
		s.send([]byte{1, 0}, row[:maxPayload], row[maxPayload:], eofOK(0))
	})
	if err != nil || got != len(big) {
		t.Fatalf("read a %d-byte value, err %v", got, err)
	}
}

func TestMalformedReplyLosesTheConnection(t *testing.T) {
	c, s := pipeConn(t, true, true)
	err := run(t, func() error { return c.Exec(context.Background(), "SELECT 1") }, func() {
		s.command()
		s.seq = 5 // out of step
		s.send(ok(0))
	})
	if !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("err = %v, want a bad connection", err)
	}
	if k := (Engine{}).ClassifyError(err).Kind; k != engine.ErrConnLost {
		t.Errorf("classified as %v, want a lost connection", k)
	}
	if err := c.Exec(context.Background(), "SELECT 1"); !errors.Is(err, driver.ErrBadConn) {
		t.Errorf("a broken session ran another command: %v", err)
	}
}

func TestLocalFileRequestRefused(t *testing.T) {
	c, s := pipeConn(t, true, true)
	err := run(t, func() error { return c.Exec(context.Background(), "LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t") }, func() {
		s.command()
		s.send(append([]byte{0xfb}, "/etc/passwd"...))
		var h [4]byte
		if _, err := io.ReadFull(s.nc, h[:]); err != nil || h != [4]byte{0, 0, 0, 2} {
			t.Errorf("client answered % x (%v), want an empty packet", h, err)
		}
		s.seq = 3
		s.send(ok(0))
	})
	if err == nil || !strings.Contains(err.Error(), "local file") {
		t.Fatalf("err = %v", err)
	}
}
