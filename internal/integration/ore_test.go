package integration

import (
	"bytes"
	"context"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/encryption/ore"
	"github.com/encbench/encbench/internal/encryption/ore/oretest"
)

// TestOreIndexRefusesForgeriesAndStaysValid (issue 17, finding 3): on a
// PostgreSQL sandbox with ORE indexes, after an enc_write_mix run the
// btree indexes pass amcheck's bt_index_parent_check; a forged value
// (real header and left part, right part rotated) and a stored query bound
// are refused on insert, and the indexes still pass afterwards.
func TestOreIndexRefusesForgeriesAndStaysValid(t *testing.T) {
	var pg *server
	for _, s := range servers(t) {
		if s.name == "postgres" {
			pg = s
		}
	}
	keys := t.TempDir()
	p := colenc.Paths{MasterKey: filepath.Join(keys, "master.json"), Keyset: filepath.Join(keys, "keyset.json")}
	for _, c := range []struct{ spec, index, col string }{
		{"id:ore,k:ashe,c,pad", "sbtest1_pkey", "id"},
		{"id:det,k:ore,c,pad", "k_1", "k"},
	} {
		base := []string{"--dsn", pg.info.DSN, "--tables", "1", "--table-size", "3000", "--master-key-file", p.MasterKey, "--keyset", p.Keyset, "--encrypt", c.spec}
		mustRun(t, append([]string{"prepare", "enc_write_mix", "--threads", "1", "--force"}, base...)...)
		r := runJSON(t, append([]string{"enc_write_mix", "--threads", "2", "--time", "2"}, base...)...)
		if !r.Variant.Verified.OK || r.Totals.Queries.Write == 0 {
			t.Fatalf("%s: write mix verified %v, %d writes", c.spec, r.Variant.Verified.OK, r.Totals.Queries.Write)
		}
		if strings.Contains(c.spec, "k:ashe") {
			// Finding 1: every ashe value has its own identifier; rows the
			// write mix deleted and inserted again took fresh ones above
			// the loaded rows' 1..3000 instead of reusing their id's.
			n := pg.scalar(t, "SELECT COUNT(*) FROM sbtest1")
			if d := pg.scalar(t, "SELECT COUNT(DISTINCT k_id) FROM sbtest1"); d != n {
				t.Errorf("%d rows share %d ashe identifiers", n, d)
			}
			if fresh := pg.scalar(t, "SELECT COUNT(*) FROM sbtest1 WHERE k_id > 3000"); fresh == 0 {
				t.Error("no row written by the write mix has a fresh ashe identifier")
			}
			r := runJSON(t, append([]string{"enc_range_sum", "--threads", "2", "--time", "1"}, base...)...)
			if !r.Variant.Verified.OK || r.Totals.Transactions == 0 {
				t.Errorf("range sums over rows with fresh identifiers: verified %v, %d", r.Variant.Verified.OK, r.Totals.Transactions)
			}
		}
		if c.col == "k" {
			oreOrderAgreesWithClient(t, pg)
		}
		pg.exec(t, "CREATE EXTENSION IF NOT EXISTS amcheck")
		check := "SELECT bt_index_parent_check('" + c.index + "'::regclass, true)"
		pg.exec(t, check)

		rows := pg.query(t, "(SELECT encode("+c.col+"::bytea, 'hex') FROM sbtest1 ORDER BY "+c.col+" LIMIT 1 OFFSET 1500) UNION ALL (SELECT encode("+c.col+"::bytea, 'hex') FROM sbtest1 ORDER BY "+c.col+" DESC LIMIT 1)")
		real, err := hex.DecodeString(rows[0][0])
		if err != nil || len(real) < colenc.OreIdentityFrom || len(rows) != 2 {
			t.Fatalf("%s: stored value %q: %v", c.spec, rows[0][0], err)
		}
		next, _ := hex.DecodeString(rows[1][0])
		forged := append([]byte(nil), real...)
		// The right part's bits follow the header, the left part and the
		// nonce, and the MAC follows them; all flipped is still a valid form.
		for i := oreRightFrom; i < len(forged); i++ {
			forged[i] ^= 0xff
		}
		other := map[string]string{"id": "'\\x0102'::bytea", "k": "'\\x0102'::bytea"}
		ins := func(v []byte) error {
			cols := map[string]string{"id": other["id"], "k": "'\\x0304'::bytea", "c": "'\\x05'::bytea", "pad": "'\\x06'::bytea"}
			if c.col == "id" {
				cols["k"] = "1"
			}
			cols[c.col] = "'\\x" + hex.EncodeToString(v) + "'::ore"
			names, values := "id, k, c, pad", cols["id"]+", "+cols["k"]+", "+cols["c"]+", "+cols["pad"]
			if strings.Contains(c.spec, "k:ashe") {
				names, values = names+", k_id", values+", 999999"
			}
			return pg.admin.Exec(context.Background(), "INSERT INTO sbtest1 ("+names+") VALUES ("+values+")")
		}
		if err := ins(forged); err == nil || !strings.Contains(err.Error(), "inconsistent ore values") {
			t.Errorf("%s: a forged value was inserted: %v", c.spec, err)
		}
		if err := ins(append(append([]byte(nil), real...), 0)); err == nil || !strings.Contains(err.Error(), "not an encbench ore") {
			t.Errorf("%s: a value one byte too long was accepted: %v", c.spec, err)
		}
		if err := ins(real[:len(real)-40]); err == nil || !strings.Contains(err.Error(), "not an encbench ore") {
			t.Errorf("%s: a truncated value was accepted: %v", c.spec, err)
		}
		// Equal last blocks, different left parts: the C comparison's
		// shortcut once took such a pair as equal.
		mixed := append([]byte(nil), real...)
		copy(mixed[oreHeader:colenc.OreIdentityFrom], next[oreHeader:colenc.OreIdentityFrom])
		lit := func(v []byte) string { return "'\\x" + hex.EncodeToString(v) + "'::ore" }
		for _, q := range []string{"SELECT " + lit(mixed) + " = " + lit(real), "SELECT ore_cmp(" + lit(real) + ", " + lit(mixed) + ")"} {
			if _, err := pg.admin.Query(context.Background(), q); err == nil || !strings.Contains(err.Error(), "inconsistent ore values") {
				t.Errorf("%s: equal last blocks with different left parts compared: %v", c.spec, err)
			}
		}
		bound := append([]byte{'Q'}, real[1:6]...)
		bound = append(bound, real[6:colenc.OreIdentityFrom+colenc.OreIdentityLen]...)
		if err := ins(bound); err == nil || !strings.Contains(err.Error(), "check constraint") {
			t.Errorf("%s: a query bound was stored: %v", c.spec, err)
		}
		if _, err := colenc.OreCompare(next, forged); err == nil {
			t.Errorf("%s: the client compares the forged value without error", c.spec)
		}
		pg.exec(t, check)
		if c.col == "k" {
			publicForgeryDetectedOnRead(t, pg, p)
		}
		mustRun(t, append([]string{"cleanup", "enc_write_mix"}, base...)...)
	}
	if tb := pg.tables(t); tb["sbtest1"] || tb["sbtest_enc"] {
		t.Errorf("cleanup left tables: %v", tb)
	}
}

// Where a stored ore value's parts are (the header is not exported).
const (
	oreHeader    = colenc.OreIdentityFrom - ore.TailFrom
	oreRightFrom = oreHeader + ore.LeftLen + ore.NonceLen
)

// publicForgeryDetectedOnRead builds, from the stored k values and public
// data only, a value that mixes two values' left blocks and whose right
// bits agree with every stored value in both directions; the server takes
// it into k's index as it would a genuine value, and the client refuses
// it when it reads it.
func publicForgeryDetectedOnRead(t *testing.T, pg *server, p colenc.Paths) {
	t.Helper()
	var stored [][]byte
	var ids []string
	for _, r := range pg.query(t, "SELECT encode(id, 'hex'), encode(k::bytea, 'hex') FROM sbtest1") {
		v, err := hex.DecodeString(r[1])
		if err != nil || len(v) != colenc.OreValueLen {
			t.Fatalf("stored k %q: %v", r[1], err)
		}
		stored, ids = append(stored, v), append(ids, r[0])
	}
	leftAt := func(v []byte, i int) []byte { return v[oreHeader+i*17 : oreHeader+(i+1)*17] }
	// x: a k no other row holds, so only x itself shares its last block.
	count := map[string]int{}
	for _, v := range stored {
		count[string(leftAt(v, 7))]++
	}
	var x, y []byte
	for _, v := range stored {
		if count[string(leftAt(v, 7))] == 1 {
			x = v
			break
		}
	}
	for _, v := range stored {
		if !bytes.Equal(leftAt(v, 6), leftAt(x, 6)) {
			y = v
			break
		}
	}
	if y == nil {
		t.Fatal("every stored k shares block 6")
	}
	forged := append([]byte(nil), x...)
	copy(leftAt(forged, 6), leftAt(y, 6))
	bodies := make([][]byte, len(stored))
	for i, g := range stored {
		bodies[i] = g[oreHeader : oreHeader+ore.CiphertextLen]
	}
	if err := oretest.Agree(forged[oreHeader:oreHeader+ore.CiphertextLen], bodies); err != nil {
		t.Fatal(err)
	}
	// Into a row whose k differs from x's, so the index never meets x's
	// last block beside another left part.
	row := ""
	for i, v := range stored {
		if !bytes.Equal(leftAt(v, 7), leftAt(x, 7)) {
			row = ids[i]
			break
		}
	}
	set := func(v []byte) error {
		return pg.admin.Exec(context.Background(), "UPDATE sbtest1 SET k = '\\x"+hex.EncodeToString(v)+"'::ore WHERE id = '\\x"+row+"'::bytea")
	}
	c, err := colenc.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	idRaw, _ := hex.DecodeString(row)
	kCol := colenc.Column{Table: "sbtest1", Name: "k", Scheme: colenc.Ore}
	if _, err := c.Decrypt(kCol, idRaw, stored[slices.Index(ids, row)]); err != nil {
		t.Fatalf("the row's genuine k does not decrypt with its row key: %v", err)
	}
	// With duplicate k, two rows of one value may ask opposite answers of
	// the same forged bit; the server refuses the forgery when its index
	// meets such a pair, and takes it otherwise.
	switch err := set(forged); {
	case err != nil && !strings.Contains(err.Error(), "inconsistent ore values"):
		t.Fatal(err)
	case err != nil:
		t.Logf("the server refused the public-data forgery: %v", err)
	}
	if v, err := c.Decrypt(kCol, idRaw, forged); err == nil {
		t.Fatalf("the client read the forged k back as %d", v.I)
	}
	// A change the server cannot see at all (the MAC), taken as it is and
	// refused by the client on read.
	genuine := stored[slices.Index(ids, row)]
	changed := append([]byte(nil), genuine...)
	changed[len(changed)-1] ^= 1
	if err := set(changed); err != nil {
		t.Fatalf("the server refused a value whose MAC alone changed: %v", err)
	}
	got := pg.query(t, "SELECT encode(k::bytea, 'hex') FROM sbtest1 WHERE id = '\\x"+row+"'::bytea")
	if v, err := c.Decrypt(kCol, idRaw, unhex(t, got[0][0])); err == nil || !strings.Contains(err.Error(), "changed or moved") {
		t.Fatalf("the client read a k whose MAC was changed: %d, %v", v.I, err)
	}
	if err := set(genuine); err != nil {
		t.Fatal(err)
	}
}

// TestAsheSumsOverScatteredIdentifiers: after a write mix reinserted rows
// with fresh ashe identifiers, id range sums over an ashe k (R4's enc-rest)
// decrypt on both engines from the identifiers the server lists (string_agg,
// GROUP_CONCAT): a wrong or short list fails the check bits, an error.
func TestAsheSumsOverScatteredIdentifiers(t *testing.T) {
	keys := t.TempDir()
	p := colenc.Paths{MasterKey: filepath.Join(keys, "master.json"), Keyset: filepath.Join(keys, "keyset.json")}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			base := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "2000", "--master-key-file", p.MasterKey,
				"--keyset", p.Keyset, "--encrypt", "k:ashe,c,pad", "--rand-type", "uniform"}
			mustRun(t, append([]string{"prepare", "enc_range_sum", "--threads", "1", "--force"}, base...)...)
			// Fresh identifiers start at 2^40, so on tables as loaded one
			// OR of the identifiers proves the run.
			if next := s.scalar(t, "SELECT ashe_next FROM sbtest_enc"); next != 1<<40 {
				t.Fatalf("the identifier counter starts at %d, want 2^40", next)
			}
			explainShowsIndexRange(t, base, "BIT_OR(k_id)")
			for _, w := range []string{"enc_range_sum", "enc_write_mix", "enc_range_sum"} {
				r := runJSON(t, append([]string{w, "--threads", "2", "--time", "1"}, base...)...)
				if !r.Variant.Verified.OK || r.Totals.Transactions == 0 || r.Totals.Errors != 0 {
					t.Fatalf("%s: verified %v, %d transactions, %d errors", w, r.Variant.Verified.OK, r.Totals.Transactions, r.Totals.Errors)
				}
			}
			if fresh := s.scalar(t, "SELECT COUNT(*) FROM sbtest1 WHERE k_id >= 1099511627776"); fresh < 10 {
				t.Fatalf("only %d rows have fresh identifiers: the sums did not meet scattered ones", fresh)
			}
			mustRun(t, append([]string{"cleanup", "enc_range_sum"}, base...)...)
		})
	}
}

// TestKSumCopy: with --k-sum-copy, range sums over k add k's ashe copy on
// the server. With an ore k (PostgreSQL) the copy's identifiers follow
// k's order, so a k range is one run; the write mix keeps the copy equal
// to k (every later sum decrypts, its check bits intact), and the proof
// decrypts both. With a det k (MariaDB) identifiers follow the rows.
func TestKSumCopy(t *testing.T) {
	keys := t.TempDir()
	p := colenc.Paths{MasterKey: filepath.Join(keys, "master.json"), Keyset: filepath.Join(keys, "keyset.json")}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			spec := "id:det,k:ore,c,pad"
			if s.name == "mariadb" {
				spec = "id:det,k:det,c,pad"
			}
			base := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "3000", "--master-key-file", p.MasterKey,
				"--keyset", p.Keyset, "--encrypt", spec, "--k-sum-copy"}
			mustRun(t, append([]string{"prepare", "enc_range_sum_k", "--threads", "1", "--force"}, base...)...)
			if s.name == "postgres" {
				if n := s.scalar(t, "SELECT COUNT(*) FROM (SELECT k, LAG(k) OVER (ORDER BY k_sum_id) AS prev FROM sbtest1) x WHERE prev > k"); n != 0 {
					t.Errorf("%d identifiers out of k's order", n)
				}
			}
			for _, w := range []string{"enc_range_sum_k", "enc_write_mix", "enc_range_sum_k"} {
				r := runJSON(t, append([]string{w, "--threads", "2", "--time", "1"}, base...)...)
				if !r.Variant.Verified.OK || r.Totals.Transactions == 0 || r.Totals.Errors != 0 || !strings.Contains(r.Variant.Name, "k_sum:ashe") {
					t.Fatalf("%s: verified %v, %d transactions, %d errors, variant %q", w, r.Variant.Verified.OK, r.Totals.Transactions, r.Totals.Errors, r.Variant.Name)
				}
			}
			code, _, errOut := encbench(context.Background(), append([]string{"run", "enc_range_sum_k", "--time", "1"}, base[:len(base)-1]...)...)
			if code != 2 || !strings.Contains(errOut, "--k-sum-copy") {
				t.Errorf("without --k-sum-copy on a copy's tables: exit %d, %q", code, errOut)
			}
			mustRun(t, append([]string{"cleanup", "enc_range_sum_k"}, base...)...)
		})
	}
}

// oreOrderAgreesWithClient: the extension's comparisons, memo included
// (sysbench's k repeats each hot value many times), order k as the
// client's own comparison does, and a k range counts the same rows through
// the index and through a sequential scan.
func oreOrderAgreesWithClient(t *testing.T, pg *server) {
	t.Helper()
	rows := pg.query(t, "SELECT encode(k::bytea, 'hex') FROM sbtest1 ORDER BY k")
	ks := make([][]byte, len(rows))
	for i, r := range rows {
		var err error
		if ks[i], err = hex.DecodeString(r[0]); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			continue
		}
		if c, err := colenc.OreCompare(ks[i-1], ks[i]); err != nil || c > 0 {
			t.Fatalf("ORDER BY k puts row %d after a greater value (client compares %d, %v)", i, c, err)
		}
	}
	lo, hi := hex.EncodeToString(ks[len(ks)/4]), hex.EncodeToString(ks[3*len(ks)/4])
	want := 0
	for _, k := range ks {
		a, errA := colenc.OreCompare(k, ks[len(ks)/4])
		b, errB := colenc.OreCompare(k, ks[3*len(ks)/4])
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a >= 0 && b <= 0 {
			want++
		}
	}
	count := "SELECT COUNT(*) FROM sbtest1 WHERE k BETWEEN '\\x" + lo + "'::ore AND '\\x" + hi + "'::ore"
	viaIndex := pg.scalar(t, count)
	pg.exec(t, "SET enable_indexscan = off")
	pg.exec(t, "SET enable_indexonlyscan = off")
	pg.exec(t, "SET enable_bitmapscan = off")
	viaScan := pg.scalar(t, count)
	pg.exec(t, "RESET ALL")
	if viaIndex != int64(want) || viaScan != int64(want) {
		t.Errorf("k range: %d rows through the index, %d through a scan, %d by the client's comparison", viaIndex, viaScan, want)
	}
}
