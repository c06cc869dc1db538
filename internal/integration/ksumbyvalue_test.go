package integration

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
)

// TestKSumByValue: with --k-sum-by-value a range sum over k counts rows
// per distinct k on the server. On PostgreSQL an ore k gets a copy bound
// to its column only (k_value, type ore_det): equal k have equal bytes,
// even after the write mix rewrote some, so its index is deduplicated; and
// value x count over a range's groups is the sum of the rows' own k,
// decrypted one by one. On MariaDB a det k is grouped as it is, and its
// tables are those of a plain enc prepare.
func TestKSumByValue(t *testing.T) {
	keys := t.TempDir()
	p := colenc.Paths{MasterKey: filepath.Join(keys, "master.json"), Keyset: filepath.Join(keys, "keyset.json")}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			spec, name := "id:det,k:ore,c,pad", "k_value:ore_det"
			if s.name == "mariadb" {
				spec, name = "id:det,k:det,c,pad", "k:det"
			}
			base := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "3000", "--master-key-file", p.MasterKey,
				"--keyset", p.Keyset, "--encrypt", spec, "--k-sum-by-value"}
			mustRun(t, append([]string{"prepare", "enc_range_sum_k", "--threads", "1", "--force"}, base...)...)
			for _, w := range []string{"enc_range_sum_k", "enc_write_mix", "enc_range_sum_k"} {
				r := runJSON(t, append([]string{w, "--threads", "2", "--time", "1"}, base...)...)
				if !r.Variant.Verified.OK || r.Totals.Transactions == 0 || !strings.Contains(r.Variant.Name, name) {
					t.Fatalf("%s: verified %v, %d transactions, variant %q", w, r.Variant.Verified.OK, r.Totals.Transactions, r.Variant.Name)
				}
				p := r.Variant.Verified.Colenc
				copies := 0
				for _, c := range p.Columns {
					if c.Copy && (c.Column != "k_value" || c.Scheme != "ore_det") {
						t.Errorf("copy column %+v", c)
					}
					if c.Copy {
						copies++
					}
				}
				if p.BusinessEncrypted() != 4 || copies != len(p.Columns)-4 || s.name == "postgres" && copies != 1 {
					t.Errorf("proof lists %d business columns and %d copies: %+v", p.BusinessEncrypted(), copies, p.Columns)
				}
			}
			if s.name == "postgres" {
				valueCopyHolds(t, s, p)
			}
			// A det k needs no copy: its tables are plain enc tables.
			code, _, errOut := encbench(t.Context(), append([]string{"run", "enc_range_sum_k", "--time", "1"}, base[:len(base)-1]...)...)
			if s.name == "postgres" && (code != 2 || !strings.Contains(errOut, "--k-sum-by-value")) {
				t.Errorf("without --k-sum-by-value on its tables: exit %d, %q", code, errOut)
			}
			mustRun(t, append([]string{"cleanup", "enc_range_sum_k"}, base...)...)
		})
	}
}

// valueCopyHolds checks the ore copy on the server after the write mix.
func valueCopyHolds(t *testing.T, pg *server, p colenc.Paths) {
	t.Helper()
	distinct := pg.scalar(t, "SELECT COUNT(DISTINCT k) FROM sbtest1")
	images := pg.scalar(t, "SELECT COUNT(DISTINCT k_value::bytea) FROM sbtest1")
	if images != distinct {
		t.Errorf("k_value: %d distinct byte strings for %d distinct k (equal k must have equal bytes)", images, distinct)
	}
	if idx, tbl := pg.scalar(t, "SELECT pg_relation_size('k_value_1')"), pg.scalar(t, "SELECT pg_relation_size('k_1')"); idx*3 > tbl {
		t.Errorf("k_value's index is %d bytes against k's %d: not deduplicated", idx, tbl)
	}
	c, err := colenc.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	kCol := colenc.Column{Table: "sbtest1", Name: "k", Scheme: colenc.Ore}
	vCol := colenc.Column{Table: "sbtest1", Name: "k_value", Scheme: colenc.Ore}
	for _, r := range [][2]int64{{1, 3000}, {1400, 1600}, {1500, 1500}, {2990, 5000}} {
		literal := func(col colenc.Column, v int64, typ string) string {
			tok, err := c.OreToken(col, v)
			if err != nil {
				t.Fatal(err)
			}
			return "'\\x" + hex.EncodeToString(tok) + "'::" + typ
		}
		var want, got int64
		for _, row := range pg.query(t, "SELECT id, k::bytea FROM sbtest1 WHERE k BETWEEN "+
			literal(kCol, r[0], "ore")+" AND "+literal(kCol, r[1], "ore")) {
			k, err := c.DecryptOre(kCol, unhex(t, row[0]), unhex(t, row[1]))
			if err != nil {
				t.Fatal(err)
			}
			want += k.I
		}
		for _, row := range pg.query(t, "SELECT k_value::bytea, COUNT(*) FROM sbtest1 WHERE k_value BETWEEN "+
			literal(vCol, r[0], "ore_det")+" AND "+literal(vCol, r[1], "ore_det")+" GROUP BY k_value") {
			k, err := c.DecryptOre(vCol, nil, unhex(t, row[0]))
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			fmt.Sscan(row[1], &n)
			got += k.I * n
		}
		if got != want || (r[0] == 1 && want == 0) {
			t.Errorf("k in %d..%d: value x count gives %d, the rows' own k add up to %d", r[0], r[1], got, want)
		}
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "\\x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
