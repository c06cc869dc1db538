package suiterun

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/encbench/encbench/internal/engine/mysql"
	_ "github.com/encbench/encbench/internal/engine/postgres"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
)

var reg = workload.Default()

const suiteText = `name: t
targets:
  - engine: postgres
  - name: remote
    dsn: postgres://bench@127.0.0.1:5999/bench
    tls_ca: /etc/ca.pem
variants: [plain, tls1.3, colenc50]
workloads:
  - name: tpcc
    options: {isolation: serializable}
    variants: [plain, colenc50]
  - name: oltp_point_select
    label: reconnect
    options: {reconnect-per-txn: true}
    variants: [plain, tls1.3]
  - name: connect
    threads: [1]
    variants: [plain, tls1.3]
threads: [4]
time: 7
warmup: 2
repetitions: 2
data: {tables: 3, table-size: 500, warehouses: 2}
`

func plan(t *testing.T) *Executor {
	t.Helper()
	return planOf(t, suiteText, suite.NoOverrides())
}

// planOf is a checked suite run of a suite text, not started.
func planOf(t *testing.T, text string, o suite.Overrides) *Executor {
	t.Helper()
	s, err := suite.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := suite.Expand(*s, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := &Executor{Plan: p, Dir: suite.Dir(t.TempDir()), Registry: reg, Stdout: io.Discard, Stderr: io.Discard}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	return x
}

func cell(t *testing.T, x *Executor, setup, wl string) (suite.Cell, spec.Spec) {
	t.Helper()
	for _, c := range x.Plan.Cells {
		if c.Setup == setup && c.WorkloadID() == wl {
			s, err := x.srv.cellSpec(x.srv.setups[c.Setup], c)
			if err != nil {
				t.Fatal(err)
			}
			return c, s
		}
	}
	t.Fatalf("no cell %s %s", setup, wl)
	return suite.Cell{}, spec.Spec{}
}

// A suite cell is a spec built directly: target, layers, data set, the
// workload's own options and the suite's runner settings.
func TestCellSpecs(t *testing.T) {
	x := plan(t)
	_, s := cell(t, x, "remote-colenc50", "tpcc")
	ch := s.Changed()
	want := map[string]string{"dsn": "postgres://bench@127.0.0.1:5999/bench", "tls": "disable", "threads": "4", "time": "7",
		"warmup-time": "2", "warehouses": "2", "encrypt-columns": "50", "isolation": "serializable", "variant-name": "colenc50",
		"master-key-file": filepath.Join(x.Dir.Keys(), "master.json"), "keyset": filepath.Join(x.Dir.Keys(), "keyset.json")}
	for k, v := range want {
		if ch[k] != v {
			t.Errorf("tpcc colenc50 on a DSN: --%s = %q, want %q (all: %v)", k, ch[k], v, ch)
		}
	}
	if _, ok := ch["tables"]; ok {
		t.Error("the oltp data option reached tpcc")
	}
	_, s = cell(t, x, "remote-tls1.3", "reconnect")
	if s.Server.TLS.Mode != "verify-full" || s.Server.TLS.CAFile != "/etc/ca.pem" || s.Server.TLS.Version != "1.3" || !s.Runner.ReconnectPerTxn {
		t.Errorf("tls1.3 on a DSN: %+v reconnect %v", s.Server.TLS, s.Runner.ReconnectPerTxn)
	}
	if ch := s.Changed(); ch["tables"] != "3" || ch["table-size"] != "500" {
		t.Errorf("data options on oltp: %v", ch)
	}
	_, s = cell(t, x, "postgres-tls1.3", "connect")
	if s.Server.Sandbox != x.Dir.Sandbox("postgres-tls1.3") || s.Server.DSN != "" || s.Threads != 1 {
		t.Errorf("sandbox cell: %+v threads %d", s.Server, s.Threads)
	}
	if s.Runner.Time != 7*time.Second || s.Runner.Events != 0 {
		t.Errorf("connect in a suite runs for the suite's time: %+v", s.Runner)
	}
}

// The reproduce lines of plan.json parse back to the specs the suite ran.
func TestReproduceLinesParseBack(t *testing.T) {
	x := plan(t)
	rec := x.Record()
	for _, su := range x.Plan.Setups {
		lines := strings.Split(rec.Reproduce[su.ID], "\n")
		var run string
		for _, l := range lines {
			if strings.HasPrefix(l, "encbench run ") {
				run = l
			}
		}
		if run == "" {
			t.Fatalf("%s: no run line in %q", su.ID, rec.Reproduce[su.ID])
		}
		args := shellSplit(t, strings.TrimPrefix(run, "encbench run "))
		got, err := spec.Parse(spec.Run, args, reg)
		if err != nil {
			t.Fatalf("%s: %q does not parse: %v", su.ID, run, err)
		}
		var first suite.Cell
		for _, c := range x.Plan.Cells {
			if c.Setup == su.ID && c.Workload == got.Workload {
				first = c
				break
			}
		}
		want, err := x.srv.cellSpec(x.srv.setups[su.ID], first)
		if err != nil {
			t.Fatal(err)
		}
		want.Runner.Repetition = 1
		if strings.Join(got.Args(), " ") != strings.Join(want.Args(), " ") {
			t.Errorf("%s:\n line %v\n cell %v", su.ID, got.Args(), want.Args())
		}
	}
}

// shellSplit undoes ShellWord's quoting.
func shellSplit(t *testing.T, line string) []string {
	var out []string
	var cur strings.Builder
	in, started := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' && !in:
			in, started = true, true
		case c == '\'' && in:
			in = false
		case c == '\\' && !in && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == ' ' && !in:
			if started || cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			started = false
		default:
			cur.WriteByte(c)
		}
	}
	if started || cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func TestSuiteRefusesAVariantTheWorkloadCannotRun(t *testing.T) {
	text := strings.Replace(suiteText, "    variants: [plain, tls1.3]\n  - name: connect", "  - name: connect", 1)
	s, _ := suite.Parse([]byte(text))
	p, _ := suite.Expand(*s, suite.NoOverrides(), nil)
	x := &Executor{Plan: p, Dir: suite.Dir(t.TempDir()), Registry: reg}
	err := x.Check()
	if err == nil || !strings.Contains(err.Error(), "does not encrypt columns") || errs.ExitCode(err) != 2 {
		t.Errorf("oltp_point_select in colenc50: %v", err)
	}
}

// Setups that share another's server and data show the data set as
// prepared once, by that setup, instead of a prepare line of their own.
func TestReproduceShowsTheDataPreparedOnce(t *testing.T) {
	x := plan(t)
	rec := x.Record()
	shared := 0
	for _, su := range x.Plan.Setups {
		ls := x.srv.setups[su.ID]
		lines := rec.Reproduce[su.ID]
		prepares := strings.Count(lines, "encbench prepare ")
		if ls.owner != nil && ls.owner != ls {
			shared++
			if prepares != 0 || !strings.Contains(lines, ls.owner.ID+"'s, prepared once") {
				t.Errorf("%s shares %s's data, yet shows:\n%s", su.ID, ls.owner.ID, lines)
			}
		} else if prepares != 1 {
			t.Errorf("%s: %d prepare lines:\n%s", su.ID, prepares, lines)
		}
	}
	if shared == 0 {
		t.Fatal("the test suite has no setup sharing a server: the check saw nothing")
	}
}
