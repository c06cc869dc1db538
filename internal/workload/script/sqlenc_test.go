package script

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
)

// What the client encrypts and decrypts in each statement, and the uses
// it must refuse, each with a reason a reader can act on.
func TestAnalyzeStatement(t *testing.T) {
	spec, err := parseEncrypt([]string{"pgbench_accounts.aid=det,pgbench_accounts.filler=rnd", "pgbench_history.delta=rnd,pgbench_history.mtime=det"})
	if err != nil {
		t.Fatal(err)
	}
	type bound map[int]string // parameter ordinal -> column
	for sql, want := range map[string]struct {
		params  bound
		results []string
	}{
		"UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?":                {bound{1: "aid"}, nil},
		"SELECT abalance, filler FROM pgbench_accounts WHERE aid = ?":                      {bound{0: "aid"}, []string{"filler"}},
		"SELECT a.filler AS f FROM pgbench_accounts a WHERE a.aid IN (?, ?)":               {bound{0: "aid", 1: "aid"}, []string{"f"}},
		"UPDATE pgbench_accounts SET filler = ? WHERE aid = ?":                             {bound{0: "filler", 1: "aid"}, nil},
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, ?)": {bound{3: "delta", 4: "mtime"}, nil},
		"SELECT count(*) FROM pgbench_tellers WHERE tid = ?":                               {nil, nil},
		"DELETE FROM pgbench_accounts WHERE aid = ?":                                       {bound{0: "aid"}, nil},
		"SELECT abalance FROM pgbench_accounts WHERE aid = ? AND bid = ?":                  {bound{0: "aid"}, nil},
	} {
		enc, err := analyzeStatement(sql, spec)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		got := bound{}
		var results []string
		if enc != nil {
			for i, p := range enc.params {
				if p != nil {
					got[i] = p.name
				}
			}
			for r := range enc.results {
				results = append(results, r)
			}
		}
		if len(got) != len(want.params) || strings.Join(results, ",") != strings.Join(want.results, ",") {
			t.Errorf("%s: binds %v, decrypts %v; want %v, %v", sql, got, results, want.params, want.results)
		}
		for i, c := range want.params {
			if got[i] != c {
				t.Errorf("%s: parameter %d binds %q, want %q", sql, i, got[i], c)
			}
		}
	}
	for sql, why := range map[string]string{
		"SELECT abalance FROM pgbench_accounts WHERE aid BETWEEN ? AND ?":                                  "a range on pgbench_accounts.aid",
		"SELECT abalance FROM pgbench_accounts WHERE aid > ?":                                              "a range on pgbench_accounts.aid",
		"SELECT abalance FROM pgbench_accounts ORDER BY aid":                                               "ORDER BY pgbench_accounts.aid",
		"SELECT sum(delta) FROM pgbench_history":                                                           "SUM(pgbench_history.delta)",
		"UPDATE pgbench_history SET delta = delta + ?":                                                     "arithmetic on pgbench_history.delta",
		"SELECT 1 FROM pgbench_accounts WHERE filler = ?":                                                  "an equality on pgbench_accounts.filler never holds",
		"SELECT 1 FROM pgbench_accounts WHERE aid = 5":                                                     `compared with "5"`,
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)": "the value of pgbench_history.mtime is not a :variable",
	} {
		if _, err := analyzeStatement(sql, spec); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want a refusal saying %q", sql, err, why)
		}
	}
	if _, err := parseEncrypt([]string{"t.c=ore"}); err == nil {
		t.Error("ore accepted for a script")
	}
	if s, _ := parseEncrypt([]string{"T.C=DET"}); s["t"]["c"] != colenc.Det {
		t.Errorf("names and schemes are case-insensitive: %v", s)
	}
}
