package integration

import "testing"

// TestYCSBOnSQL loads usertable on both engines and runs every core
// workload, checking the operation mix and that inserts reached the table.
func TestYCSBOnSQL(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			mustRun(t, "prepare", "ycsb_a", "--dsn", s.info.DSN, "--recordcount", "300", "--threads", "2", "--force")
			defer mustRun(t, "cleanup", "ycsb_a", "--dsn", s.info.DSN)
			if n := s.scalar(t, "SELECT COUNT(*) FROM usertable"); n != 300 {
				t.Fatalf("loaded %d records, want 300", n)
			}
			want := map[string][]string{
				"ycsb_a": {"READ", "UPDATE"}, "ycsb_b": {"READ", "UPDATE"}, "ycsb_c": {"READ"},
				"ycsb_d": {"READ", "INSERT"}, "ycsb_e": {"SCAN", "INSERT"}, "ycsb_f": {"READ", "READ-MODIFY-WRITE"},
			}
			for _, wl := range []string{"ycsb_a", "ycsb_b", "ycsb_c", "ycsb_d", "ycsb_e", "ycsb_f"} {
				before := s.scalar(t, "SELECT COUNT(*) FROM usertable")
				r := runJSON(t, wl, "--dsn", s.info.DSN, "--recordcount", "300", "--operationcount", "400", "--threads", "2")
				if r.Totals.Transactions != 400 {
					t.Fatalf("%s: %d operations, want 400", wl, r.Totals.Transactions)
				}
				var n int64
				for _, op := range want[wl] {
					n += r.Parts[op].N
				}
				if n != 400 || len(r.Parts) != len(want[wl]) {
					t.Errorf("%s: operations %v, want only %v", wl, r.Parts, want[wl])
				}
				if got := s.scalar(t, "SELECT COUNT(*) FROM usertable") - before; got != r.Parts["INSERT"].N {
					t.Errorf("%s: table grew by %d rows, the run inserted %d", wl, got, r.Parts["INSERT"].N)
				}
				if r.Workload.Params["requestdistribution"] == "" {
					t.Errorf("%s: no request distribution recorded", wl)
				}
			}
			// Reads hit a zipfian hot set; prove the proportions follow the flags.
			r := runJSON(t, "ycsb_a", "--dsn", s.info.DSN, "--recordcount", "300", "--operationcount", "1000",
				"--readproportion", "0.9", "--updateproportion", "0.1", "--requestdistribution", "uniform")
			if reads := r.Parts["READ"].N; reads < 850 || reads > 950 {
				t.Errorf("90%% reads asked, %d of 1000 done", reads)
			}
		})
	}
}
