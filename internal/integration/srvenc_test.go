package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerSideColumnEncryption prepares and runs oltp_read_write with
// the srvenc layer on both engines and checks, from the server's side,
// that every stored c and pad is a ciphertext the server decrypts to
// sysbench's text under the run's key, the rows the run wrote too; then
// that a server of the user's (a DSN) without pgcrypto is refused in
// pre-flight, exit 2, with one line naming the extension.
func TestServerSideColumnEncryption(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			keyFile := filepath.Join(t.TempDir(), "srvenc.key")
			layer := "srvenc:key-file=" + keyFile
			data := []string{"--sandbox", s.info.Dir, "--tables", "1", "--table-size", "300"}
			t.Cleanup(func() { encbench(context.Background(), append([]string{"cleanup", "oltp_read_write"}, data...)...) })
			mustRun(t, append([]string{"prepare", "oltp_read_write", "--variant", layer}, data...)...)
			key, err := os.ReadFile(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			k := strings.TrimSpace(string(key))
			// The server's own reading: the stored type, and how many rows
			// decrypt to c's and pad's sysbench shape.
			var typeSQL, shapeSQL string
			if s.name == "postgres" {
				typeSQL = "SELECT pg_typeof(c)::text, pg_typeof(pad)::text FROM sbtest1 LIMIT 1"
				shapeSQL = "SELECT count(*) FROM sbtest1 WHERE pgp_sym_decrypt(c, '" + k + "') ~ '^[0-9]{11}(-[0-9]{11}){9}$' AND pgp_sym_decrypt(pad, '" + k + "') ~ '^[0-9]{11}(-[0-9]{11}){4}$' AND position(convert_to(pgp_sym_decrypt(c, '" + k + "'), 'UTF8') in c) = 0"
			} else {
				typeSQL = "SELECT DATA_TYPE, (SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'sbtest1' AND COLUMN_NAME = 'pad') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'sbtest1' AND COLUMN_NAME = 'c'"
				shapeSQL = "SELECT count(*) FROM sbtest1 WHERE AES_DECRYPT(c, UNHEX('" + k + "')) RLIKE '^[0-9]{11}(-[0-9]{11}){9}$' AND AES_DECRYPT(pad, UNHEX('" + k + "')) RLIKE '^[0-9]{11}(-[0-9]{11}){4}$' AND LOCATE(AES_DECRYPT(c, UNHEX('" + k + "')), c) = 0"
			}
			if got := s.query(t, typeSQL)[0]; !binary(got[0]) || !binary(got[1]) {
				t.Fatalf("c and pad are stored as %v, not binary", got)
			}
			if n, all := s.scalar(t, shapeSQL), s.scalar(t, "SELECT count(*) FROM sbtest1"); n != all || all == 0 {
				t.Fatalf("%d of %d rows hold ciphertexts of sysbench's c and pad", n, all)
			}
			r := runJSON(t, append([]string{"oltp_read_write", "--variant", layer, "--time", "2"}, data...)...)
			if r.Variant.Name != layer {
				t.Errorf("the run is named %q, not by its layer", r.Variant.Name)
			}
			if len(r.Variant.Verified.Layers) != 1 {
				t.Fatalf("proofs: %+v", r.Variant.Verified.Layers)
			}
			if p := r.Variant.Verified.Layers[0]; p.Checked == 0 || p.Proven != p.Checked || p.Leakage == "" {
				t.Errorf("proof: %+v", p)
			}
			if r.Totals.Queries.Write == 0 {
				t.Fatal("the run wrote nothing")
			}
			if n, all := s.scalar(t, shapeSQL), s.scalar(t, "SELECT count(*) FROM sbtest1"); n != all {
				t.Errorf("after the run, %d of %d rows hold ciphertexts of sysbench's c and pad", n, all)
			}
			if s.name != "postgres" {
				return
			}
			s.exec(t, "DROP EXTENSION pgcrypto")
			t.Cleanup(func() { s.exec(t, "CREATE EXTENSION IF NOT EXISTS pgcrypto") })
			code, out, errOut := encbench(t.Context(), "run", "oltp_read_write", "--dsn", s.info.DSN, "--variant", layer, "--time", "1", "--tables", "1", "--table-size", "300")
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "pgcrypto extension") {
				t.Errorf("a DSN without pgcrypto: exit %d, want 2 and one line naming it\n%s\n%s", code, out, errOut)
			}
		})
	}
}

func binary(sqlType string) bool {
	return sqlType == "bytea" || strings.EqualFold(sqlType, "varbinary")
}
