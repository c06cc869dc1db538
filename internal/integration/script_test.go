package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// TestScriptWorkload runs pgbench's tpcb-like and a script of the user's
// with \gset and \if on both engines, a sandbox and the same server named
// by its DSN: pgbench_history gains exactly one row per transaction the
// run reports, every statement is timed once per transaction that ran
// it, and bad scripts stop before anything runs with file:line:column
// and exit 2.
func TestScriptWorkload(t *testing.T) {
	dir := t.TempDir()
	custom := filepath.Join(dir, "balance.sql")
	writeFile(t, custom, `\set aid random(1, 100000 * :scale)
SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid \gset
\if :bal > 0
UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = :aid;
\else
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\endif
`)
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			data := []string{"--sandbox", s.info.Dir}
			t.Cleanup(func() { encbench(context.Background(), append([]string{"cleanup", "pgbench"}, data...)...) })
			mustRun(t, append([]string{"prepare", "pgbench", "--scale", "1"}, data...)...)
			if n := s.scalar(t, "SELECT count(*) FROM pgbench_accounts"); n != 100000 {
				t.Fatalf("pgbench_accounts has %d rows, want 100,000 (scale 1)", n)
			}
			var r *result.Result
			for _, target := range [][]string{data, {"--dsn", s.info.DSN}} {
				before := s.scalar(t, "SELECT count(*) FROM pgbench_history")
				r = runJSON(t, append([]string{"pgbench", "--threads", "4", "--time", "2"}, target...)...)
				after := s.scalar(t, "SELECT count(*) FROM pgbench_history")
				if r.Totals.Transactions == 0 || after-before != r.Totals.Transactions {
					t.Errorf("%s: pgbench_history gained %d rows; the run reported %d transactions", target[0], after-before, r.Totals.Transactions)
				}
				if len(r.Parts) != 7 {
					t.Errorf("tpcb-like's seven statements are timed as %d parts", len(r.Parts))
				}
				for name, p := range r.Parts {
					if p.N != r.Totals.Transactions {
						t.Errorf("statement %s timed %d times in %d transactions", name, p.N, r.Totals.Transactions)
					}
				}
			}
			r = runJSON(t, append([]string{"script", "--file", custom, "--threads", "2", "--time", "1"}, data...)...)
			sel, down, up := r.Parts["balance.sql:2"].N, r.Parts["balance.sql:4"].N, r.Parts["balance.sql:6"].N
			if sel != r.Totals.Transactions || down+up != sel || down == 0 || up == 0 {
				t.Errorf("\\gset and \\if: %d selects, %d and %d updates in %d transactions", sel, down, up, r.Totals.Transactions)
			}
			// Client-side columns on a script: prepare stores them encrypted,
			// the run binds and proves them, and a use the scheme cannot
			// serve stops at parse time with its line.
			keys := []string{"--master-key-file", filepath.Join(t.TempDir(), "master.json")}
			enc := append([]string{"--encrypt", "pgbench_accounts.aid=det,pgbench_history.delta=rnd"}, keys...)
			mustRun(t, append(append([]string{"prepare", "pgbench", "--scale", "1", "--force"}, enc...), data...)...)
			before := s.scalar(t, "SELECT count(*) FROM pgbench_history")
			r = runJSON(t, append(append([]string{"pgbench", "--threads", "2", "--time", "1"}, enc...), data...)...)
			p := r.Variant.Verified.Colenc
			if p == nil || p.Checked == 0 || p.Ciphertext != p.Checked || len(p.Columns) != 2 || p.Columns[1].Scheme != "rnd_column" {
				t.Errorf("column proof: %+v", p)
			}
			if got := s.scalar(t, "SELECT count(*) FROM pgbench_history") - before; got != r.Totals.Transactions {
				t.Errorf("encrypted: pgbench_history gained %d rows for %d transactions", got, r.Totals.Transactions)
			}
			code, out, errOut := encbench(t.Context(), append(append([]string{"run", "pgbench", "--time", "1", "--encrypt", "pgbench_accounts.abalance=det"}, keys...), data...)...)
			if code != 2 || !strings.Contains(errOut, "tpcb-like:6: arithmetic on pgbench_accounts.abalance") {
				t.Errorf("arithmetic on ciphertext: exit %d\n%s%s", code, out, errOut)
			}
			for text, want := range map[string]string{
				"\\set x 1 +\n":                      "bad.sql:1:11: expected an expression",
				"SELECT :nope;\n":                    "bad.sql:1:8: :nope is read before any",
				"SELECT 1 AS a \\gset\nSELECT :b;\n": "bad.sql:2:8: :b is read before any",
			} {
				bad := filepath.Join(dir, "bad.sql")
				writeFile(t, bad, text)
				code, out, errOut := encbench(t.Context(), append([]string{"run", "script", "--file", bad, "--time", "1"}, data...)...)
				if code != 2 || !strings.Contains(errOut, want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
					t.Errorf("%q: exit %d, want 2 and one line with %q\n%s%s", text, code, want, out, errOut)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestR4ScriptsSendTheBuiltInMix runs each of examples/r4's scripts and
// the built-in R4 workload it stands for on the same plaintext tables:
// both send the same statements per transaction, by kind, as the run
// counts them (reads for the four queries; writes, a quarter each of
// four kinds, for the write mix), within 0.1 a transaction: the built-in
// write mix sends nothing in an event whose delete picks an id it has
// deleted already (a few in a hundred), where the script deletes another.
func TestR4ScriptsSendTheBuiltInMix(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", "r4")
	pairs := map[string]string{"point-id": "enc_point_select", "range-id": "enc_range_sum", "point-k": "enc_point_select_k",
		"range-k": "enc_range_sum_k", "write-mix": "enc_write_mix"}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			data := []string{"--sandbox", s.info.Dir, "--tables", "1", "--table-size", "2000"}
			t.Cleanup(func() { encbench(context.Background(), append([]string{"cleanup", "enc_point_select"}, data...)...) })
			mustRun(t, append([]string{"prepare", "enc_point_select", "--force"}, data...)...)
			for script, builtin := range pairs {
				b := runJSON(t, append([]string{builtin, "--threads", "2", "--time", "1"}, data...)...)
				r := runJSON(t, "script", "--sandbox", s.info.Dir, "--file", filepath.Join(examples, script+".sql"), "--threads", "2", "--time", "1",
					"--define", "table_size=2000", "--define", "range_size=100", "--define", "clients=2", "--define", "deleted=0")
				per := func(x *result.Result) [2]float64 {
					n := float64(x.Totals.Transactions)
					return [2]float64{float64(x.Totals.Queries.Read) / n, float64(x.Totals.Queries.Write) / n}
				}
				got, want := per(r), per(b)
				if d0, d1 := got[0]-want[0], got[1]-want[1]; d0*d0 > 0.01 || d1*d1 > 0.01 {
					t.Errorf("%s sends %.2f reads and %.2f writes per transaction; %s %.2f and %.2f", script, got[0], got[1], builtin, want[0], want[1])
				}
			}
		})
	}
}
