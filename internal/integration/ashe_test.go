package integration

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
)

// rawBytes reads a binary column as the admin connection returns it:
// PostgreSQL's bytea as \x hex text, MariaDB's bytes as they are.
func rawBytes(t *testing.T, v string) []byte {
	t.Helper()
	if strings.HasPrefix(v, `\x`) {
		b, err := hex.DecodeString(v[2:])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(v)
}

// asheRow is one row's ashe k: identifier, ciphertext and plaintext.
type asheRow struct {
	id    uint64
	ct, m int64
}

// dataSetCipher opens the keyset bound to the data set the server holds.
func dataSetCipher(t *testing.T, s *server, p colenc.Paths) *colenc.Cipher {
	t.Helper()
	c, err := colenc.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.OpenDataSet(rawBytes(t, s.query(t, "SELECT data_set FROM sbtest_enc")[0][0]))
	if err != nil {
		t.Fatal(err)
	}
	if c, err = c.ForDataSet(nonce); err != nil {
		t.Fatal(err)
	}
	return c
}

// asheRows reads every row's ashe k and decrypts it with the data set's
// own keys, as a client that knows the values would.
func asheRows(t *testing.T, s *server, p colenc.Paths) []asheRow {
	t.Helper()
	c := dataSetCipher(t, s, p)
	col := colenc.Column{Table: "sbtest1", Name: "k", Scheme: colenc.Ashe}
	var out []asheRow
	for _, r := range s.query(t, "SELECT k_id, k FROM sbtest1") {
		id, _ := strconv.ParseUint(r[0], 10, 64)
		ct, _ := strconv.ParseInt(r[1], 10, 64)
		m, err := c.AsheDecrypt(col, id, ct)
		if err != nil {
			t.Fatalf("row with identifier %d: %v", id, err)
		}
		out = append(out, asheRow{id, ct, m})
	}
	return out
}

// TestAsheIdentifiersNeverRepeatUnderOneKey: two prepares under one
// keyset, with different seeds, share identifiers but no key, so no pair
// of their ciphertexts gives away the difference of its values; and a
// server counter set back stops the next run with one line.
func TestAsheIdentifiersNeverRepeatUnderOneKey(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			keys := t.TempDir()
			p := colenc.Paths{MasterKey: filepath.Join(keys, "master.json"), Keyset: filepath.Join(keys, "keyset.json")}
			base := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "300", "--encrypt", "id:det,k:ashe,c,pad",
				"--master-key-file", p.MasterKey, "--keyset", p.Keyset}
			defer mustRun(t, append([]string{"cleanup", "enc_write_mix"}, base...)...)
			mustRun(t, append([]string{"prepare", "enc_write_mix", "--rand-seed", "1", "--force"}, base...)...)
			first := map[uint64]asheRow{}
			for _, r := range asheRows(t, s, p) {
				first[r.id] = r
			}
			mustRun(t, append([]string{"prepare", "enc_write_mix", "--rand-seed", "2", "--force"}, base...)...)
			shared, differ := 0, 0
			for _, b := range asheRows(t, s, p) {
				a, ok := first[b.id]
				if !ok {
					continue
				}
				shared++
				if a.m != b.m {
					differ++
				}
				if uint64(b.ct)-uint64(a.ct) == uint64(b.m-a.m)*colenc.AsheOne {
					t.Fatalf("identifier %d: the two data sets' ciphertexts differ by their values' difference (%d - %d)", b.id, b.m, a.m)
				}
			}
			if shared < 250 || differ == 0 {
				t.Fatalf("the test is weak: %d identifiers shared, %d with different values", shared, differ)
			}

			mustRun(t, append([]string{"run", "enc_write_mix", "--time", "1", "--threads", "2"}, base...)...)
			// Two prepares and a run sealed c and pad of every row with rnd:
			// keys show counts them for the primary rnd key.
			shown := mustRun(t, "keys", "show", "--master-key-file", p.MasterKey, "--keyset", p.Keyset)
			if sealed := rndSealed(t, shown); sealed < 2*2*300 {
				t.Errorf("keys show counts %d rnd seals after two prepares of 300 rows with c and pad:\n%s", sealed, shown)
			}
			s.exec(t, "UPDATE sbtest_enc SET ashe_next = 1")
			code, _, errOut := encbench(context.Background(), append([]string{"run", "enc_write_mix", "--time", "1", "--threads", "2"}, base...)...)
			errOut = strings.TrimSpace(errOut)
			if code != 1 || !strings.Contains(errOut, "set back") || strings.Contains(errOut, "\n") {
				t.Fatalf("a run on a counter set back: exit %d, %q", code, errOut)
			}
		})
	}
}

// rndSealed reads the primary rnd key's sealed count from keys show.
func rndSealed(t *testing.T, shown string) int64 {
	t.Helper()
	for _, line := range strings.Split(shown, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "rnd" && f[3] == "true" {
			n, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil {
				t.Fatalf("sealed column %q: %v", f[4], err)
			}
			return n
		}
	}
	t.Fatalf("no primary rnd key in keys show:\n%s", shown)
	return 0
}
