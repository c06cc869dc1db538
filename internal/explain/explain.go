// Package explain prints the server's plan of each statement a workload
// runs (--explain): one worker runs a few events on its own connection and
// the first execution of every prepared statement is preceded by EXPLAIN
// of the same statement with the same arguments.
package explain

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// Limits of the explaining pass: enough events for rare statements (TPC-C's
// 4% transactions) without running long.
const (
	maxEvents = 300
	maxTime   = 10 * time.Second
)

// Run explains wl's statements on t, writing plans to out. It returns the
// number of statements explained.
func Run(ctx context.Context, t engine.Target, wl workload.Workload, threads int, out io.Writer) (int, error) {
	c, err := t.Engine.Connect(ctx, t)
	if err != nil {
		return 0, err
	}
	d := t.Engine.Dialect()
	// The explaining pass owns c: whatever the worker does with it, it is
	// closed here.
	defer c.Close()
	rec := &conn{Conn: c, ctx: ctx, d: d, out: out}
	t.Worker = false
	w, err := wl.NewWorker(ctx, workload.WorkerEnv{Conn: rec, Dialect: d, Target: t, ID: 0, Threads: threads})
	if err != nil {
		return 0, err
	}
	deadline := time.Now().Add(maxTime)
	var counters workload.Counters
	for i := 0; i < maxEvents && time.Now().Before(deadline); i++ {
		if err := w.Event(&counters); err != nil {
			if rec.err != nil {
				break
			}
			_ = w.Abort(false)
		}
	}
	closeErr := w.Close()
	if rec.err != nil {
		return rec.explained, rec.err
	}
	return rec.explained, closeErr
}

// conn records prepared statements and explains each on first use.
type conn struct {
	engine.Conn
	ctx       context.Context
	d         engine.Dialect
	out       io.Writer
	explained int
	err       error
}

func (c *conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	s, err := c.Conn.Prepare(ctx, sql)
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: s, c: c, sql: sql}, nil
}

type stmt struct {
	engine.Stmt
	c    *conn
	sql  string
	done bool
}

func (s *stmt) Exec(args []engine.Arg) error {
	s.explain(args)
	return s.Stmt.Exec(args)
}

func (s *stmt) Query(args []engine.Arg, row func([][]byte) error) error {
	s.explain(args)
	return s.Stmt.Query(args, row)
}

// explainable statements are those EXPLAIN accepts (not BEGIN, COMMIT, SET).
func explainable(sql string) bool {
	f := strings.ToUpper(strings.Fields(sql + " x")[0])
	return f == "SELECT" || f == "INSERT" || f == "UPDATE" || f == "DELETE" || f == "WITH"
}

func (s *stmt) explain(args []engine.Arg) {
	if s.done || s.c.err != nil {
		return
	}
	s.done = true
	if !explainable(s.sql) {
		return
	}
	text := Interpolate(s.sql, args, s.c.d)
	rows, err := s.c.Conn.Query(s.c.ctx, s.c.d.Explain+text)
	if err != nil {
		s.c.err = fmt.Errorf("EXPLAIN %s: %w", s.sql, err)
		return
	}
	s.c.explained++
	fmt.Fprintf(s.c.out, "-- %s\n", s.sql)
	for _, r := range rows {
		fmt.Fprintln(s.c.out, longHex.ReplaceAllStringFunc(strings.Join(r, " | "), shorten))
	}
	fmt.Fprintln(s.c.out)
}

// longHex is a ciphertext literal echoed in a plan: shown shortened.
var longHex = regexp.MustCompile(`[0-9a-fA-F]{64,}`)

func shorten(h string) string { return fmt.Sprintf("%s...(%d bytes)", h[:16], len(h)/2) }

// Interpolate writes args into sql's '?' placeholders as literals
// (integers, binary values as the dialect's byte literals, NULL).
func Interpolate(sql string, args []engine.Arg, d engine.Dialect) string {
	var b strings.Builder
	n := 0
	for _, r := range sql {
		if r != '?' || n >= len(args) {
			b.WriteRune(r)
			continue
		}
		a := args[n]
		n++
		switch {
		case a.Null:
			b.WriteString("NULL")
		case a.Str != nil:
			b.WriteString(d.BytesLiteral(a.Str))
		default:
			b.WriteString(strconv.FormatInt(a.Int, 10))
		}
	}
	return b.String()
}
