package postgres

import (
	"context"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/encbench/encbench/internal/engine"
)

// fakeServer speaks the backend side of the protocol over a pipe, as a
// script: each step receives what the client must have sent and answers.
type fakeServer struct {
	t  *testing.T
	be *pgproto3.Backend
	nc net.Conn
}

func pipe(t *testing.T) (*conn, *fakeServer) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	return newConn(client, pgproto3.NewFrontend(client, client), true), &fakeServer{t: t, be: pgproto3.NewBackend(server, server), nc: server}
}

// expect reads the next message and checks its type.
func expect[T pgproto3.FrontendMessage](s *fakeServer) T {
	s.t.Helper()
	msg, err := s.be.Receive()
	if err != nil {
		s.t.Errorf("server receive: %v", err)
		var zero T
		return zero
	}
	m, ok := msg.(T)
	if !ok {
		s.t.Errorf("server got %T, want %T", msg, *new(T))
	}
	return m
}

func (s *fakeServer) send(msgs ...pgproto3.BackendMessage) {
	for _, m := range msgs {
		s.be.Send(m)
	}
	if err := s.be.Flush(); err != nil {
		s.t.Errorf("server flush: %v", err)
	}
}

var ready = &pgproto3.ReadyForQuery{TxStatus: 'I'}

func TestPrepareRewritesPlaceholdersAndBindsText(t *testing.T) {
	c, srv := pipe(t)
	done := make(chan struct{})
	var parse *pgproto3.Parse
	var bind *pgproto3.Bind
	go func() {
		defer close(done)
		parse = copyOf(expect[*pgproto3.Parse](srv))
		expect[*pgproto3.Describe](srv)
		expect[*pgproto3.Sync](srv)
		srv.send(&pgproto3.ParseComplete{}, &pgproto3.ParameterDescription{ParameterOIDs: []uint32{23, 25}},
			&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("c"), DataTypeOID: 25}}}, ready)
		b := expect[*pgproto3.Bind](srv)
		bind = &pgproto3.Bind{PreparedStatement: b.PreparedStatement, ParameterFormatCodes: append([]int16(nil), b.ParameterFormatCodes...)}
		for _, p := range b.Parameters {
			bind.Parameters = append(bind.Parameters, append([]byte(nil), p...))
		}
		bind.Parameters[1] = b.Parameters[1] // nil stays nil
		expect[*pgproto3.Execute](srv)
		expect[*pgproto3.Sync](srv)
		srv.send(&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{[]byte("hello")}},
			&pgproto3.DataRow{Values: [][]byte{nil}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")}, ready)
	}()
	st, err := c.Prepare(context.Background(), "SELECT c FROM sbtest1 WHERE id = ? AND c <> ?")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	err = st.Query([]engine.Arg{{Int: 42}, {Null: true}}, func(v [][]byte) error {
		row := []string{}
		for _, x := range v {
			if x == nil {
				row = append(row, "NULL")
			} else {
				row = append(row, string(x))
			}
		}
		rows = append(rows, row)
		return nil
	})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if parse.Query != "SELECT c FROM sbtest1 WHERE id = $1 AND c <> $2" || parse.Name != bind.PreparedStatement {
		t.Errorf("Parse %+v, Bind to %q", parse, bind.PreparedStatement)
	}
	if string(bind.Parameters[0]) != "42" || bind.Parameters[1] != nil || bind.ParameterFormatCodes != nil {
		t.Errorf("Bind parameters %q, formats %v", bind.Parameters, bind.ParameterFormatCodes)
	}
	if !reflect.DeepEqual(rows, [][]string{{"hello"}, {"NULL"}}) {
		t.Errorf("rows %v", rows)
	}
}

func copyOf(p *pgproto3.Parse) *pgproto3.Parse {
	if p == nil {
		return &pgproto3.Parse{}
	}
	c := *p
	return &c
}

// bytea and extension types whose send function is byteasend travel as
// raw bytes: the statement asks for binary format for them.
func TestRawTypesUseBinaryFormat(t *testing.T) {
	c, srv := pipe(t)
	const oreOID = 16500
	done := make(chan struct{})
	var lookup string
	var formats, results []int16
	var raw []byte
	go func() {
		defer close(done)
		expect[*pgproto3.Parse](srv)
		expect[*pgproto3.Describe](srv)
		expect[*pgproto3.Sync](srv)
		srv.send(&pgproto3.ParseComplete{}, &pgproto3.ParameterDescription{ParameterOIDs: []uint32{byteaOID, oreOID, 23}},
			&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("v"), DataTypeOID: oreOID}}}, ready)
		q := expect[*pgproto3.Query](srv)
		if q != nil {
			lookup = q.String
		}
		srv.send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("oid"), DataTypeOID: 26}}},
			&pgproto3.DataRow{Values: [][]byte{[]byte("16500")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, ready)
		b := expect[*pgproto3.Bind](srv)
		if b != nil {
			formats = append(formats, b.ParameterFormatCodes...)
			results = append(results, b.ResultFormatCodes...)
			raw = append(raw, b.Parameters[0]...)
		}
		expect[*pgproto3.Execute](srv)
		expect[*pgproto3.Sync](srv)
		srv.send(&pgproto3.BindComplete{}, &pgproto3.CommandComplete{CommandTag: []byte("INSERT 0 1")}, ready)
	}()
	st, err := c.Prepare(context.Background(), "INSERT INTO t (a, b, c) VALUES (?, ?, ?) RETURNING v")
	if err != nil {
		t.Fatal(err)
	}
	err = st.Exec([]engine.Arg{{Str: []byte{0, 1, 2, '\\'}}, {Str: []byte{9}}, {Int: 7}})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lookup, "16500") || strings.Contains(lookup, "17") && !strings.Contains(lookup, "16500") {
		t.Errorf("type lookup %q", lookup)
	}
	if !reflect.DeepEqual(formats, []int16{1, 1, 0}) || !reflect.DeepEqual(results, []int16{1}) {
		t.Errorf("parameter formats %v, result formats %v", formats, results)
	}
	if !reflect.DeepEqual(raw, []byte{0, 1, 2, '\\'}) {
		t.Errorf("bytea sent as %q, want the raw bytes", raw)
	}
}

// A server error fails the statement with its message; the connection
// stays usable because the reply is read up to ReadyForQuery.
func TestErrorThenReuse(t *testing.T) {
	c, srv := pipe(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		expect[*pgproto3.Query](srv)
		srv.send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "42P01", Message: "relation \"nope\" does not exist"}, ready)
		expect[*pgproto3.Query](srv)
		srv.send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("x"), DataTypeOID: 23}}},
			&pgproto3.DataRow{Values: [][]byte{[]byte("1")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, ready)
		expect[*pgproto3.Terminate](srv)
	}()
	err := c.Exec(context.Background(), "SELECT * FROM nope")
	if err == nil || !strings.Contains(err.Error(), "does not exist") || (Engine{}).ClassifyError(err).Kind != engine.ErrServer {
		t.Errorf("error %v", err)
	}
	rows, err := c.Query(context.Background(), "SELECT 1")
	if err != nil || !reflect.DeepEqual(rows, [][]string{{"1"}}) {
		t.Errorf("after an error: %v %v", rows, err)
	}
	c.Close()
	<-done
}

// Serialization failures and deadlocks are what sysbench retries.
func TestClassifyRetryableErrors(t *testing.T) {
	c, srv := pipe(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, code := range []string{"40001", "40P01"} {
			expect[*pgproto3.Query](srv)
			srv.send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: code, Message: "retry me"}, ready)
		}
	}()
	for i := 0; i < 2; i++ {
		err := c.Exec(context.Background(), "UPDATE t SET k = k + 1")
		if got := (Engine{}).ClassifyError(err); !got.Kind.Retryable() || !(engine.IgnoreSet{Codes: (Engine{}).DefaultIgnoredErrors()}).Ignores(got) {
			t.Errorf("error %v classified %+v, want a retryable conflict ignored by default", err, got)
		}
	}
	<-done
}

// A server that goes away mid-reply is a lost connection.
func TestServerGoneIsConnLost(t *testing.T) {
	c, srv := pipe(t)
	go func() {
		expect[*pgproto3.Query](srv)
		srv.send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("x"), DataTypeOID: 23}}})
		_ = srv.nc.Close()
	}()
	_, err := c.Query(context.Background(), "SELECT 1")
	if err == nil || (Engine{}).ClassifyError(err).Kind != engine.ErrConnLost {
		t.Errorf("error %v, class %v", err, (Engine{}).ClassifyError(err))
	}
}

// A ? inside a string, a quoted identifier, a comment or a dollar quote
// is the statement's text, not a placeholder.
func TestPlaceholdersOutsideQuotesOnly(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT ?, ?":                    "SELECT $1, $2",
		"SELECT 'a?b', ?":                "SELECT 'a?b', $1",
		"SELECT 'it''s ?', ?":            "SELECT 'it''s ?', $1",
		`SELECT "x?" FROM t WHERE a = ?`: `SELECT "x?" FROM t WHERE a = $1`,
		"SELECT ? -- why?\n, ?":          "SELECT $1 -- why?\n, $2",
		"SELECT /* ? */ ?":               "SELECT /* ? */ $1",
		"SELECT $$?$$, $tag$ ? $tag$, ?": "SELECT $$?$$, $tag$ ? $tag$, $1",
		"SELECT $1::int":                 "SELECT $1::int",
		"SELECT 'unterminated ?":         "SELECT 'unterminated ?",
	} {
		got, _ := numberPlaceholders(in)
		if got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
