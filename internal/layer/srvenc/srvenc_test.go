package srvenc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
)

func open(t *testing.T, kind, keyFile string) layer.ServerColumns {
	t.Helper()
	a, err := Layer{}.Open(layer.Spec{Layer: "srvenc", Options: map[string]string{"key-file": keyFile}}, kind)
	if err != nil {
		t.Fatal(err)
	}
	return a.(layer.ServerColumns)
}

// The key is made once, kept 0600, and the same on every later use; a
// file that holds no key is refused, not replaced.
func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir", "srvenc.key")
	l := open(t, "postgres", path)
	first, err := l.SessionSetup()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, st.Mode())
	}
	again, _ := open(t, "postgres", path).SessionSetup()
	if first[0] != again[0] || !strings.Contains(first[0], "SET encbench.srvenc_key = '") {
		t.Errorf("the key changed or is not set per session: %q, then %q", first, again)
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, "mysql", path).SessionSetup(); errs.ExitCode(err) != 2 {
		t.Errorf("a file without a key: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "not a key\n" {
		t.Error("the file the user named was overwritten")
	}
}

// The proofs' tests on the bytes: pgcrypto's first packet (RFC 4880 5.3,
// tag 3, version 4, AES-256) and PKCS#7 padded AES blocks, and neither
// given to a plaintext or to a ciphertext of the wrong shape.
func TestProofTests(t *testing.T) {
	plain := []byte("11111111111-22222222222")
	for _, c := range []struct {
		name string
		test func(check) bool
		raw  []byte
		want bool
	}{
		{"pgp aes-256", isPGPAES256, []byte{0xc3, 0x0d, 4, 9, 3, 3}, true},
		{"pgp aes-128", isPGPAES256, []byte{0xc3, 0x0d, 4, 7, 3, 3}, false},
		{"not pgp", isPGPAES256, plain, false},
		{"two blocks", isPaddedBlocks, make([]byte, 32), true},
		{"one block short", isPaddedBlocks, make([]byte, 16), false},
		{"plaintext", isPaddedBlocks, plain, false},
	} {
		if got := c.test(check{raw: c.raw, plain: plain}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The SQL each engine's part writes: the key by the session's name, never
// in the statement; a binary column wide enough for the padded blocks.
func TestStatements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k")
	pg, my := open(t, "postgres", path), open(t, "mysql", path)
	if got := pg.Write("?"); got != "pgp_sym_encrypt(?, current_setting('encbench.srvenc_key'), 'cipher-algo=aes256')" {
		t.Errorf("pg write: %s", got)
	}
	if got := my.Read("c"); got != "AES_DECRYPT(c, @encbench_srvenc_key)" {
		t.Errorf("mysql read: %s", got)
	}
	if got := my.ColumnType(120); got != "VARBINARY(128)" {
		t.Errorf("mysql type of CHAR(120): %s", got)
	}
	conv := strings.Join(pg.Convert(layer.Column{Table: "sbtest1", Name: "c", Chars: 120}), "; ")
	if !strings.Contains(conv, "TYPE bytea USING pgp_sym_encrypt(c::text") {
		t.Errorf("pg convert: %s", conv)
	}
	if _, err := (Layer{}).Open(layer.Spec{Layer: "srvenc"}, "mongodb"); errs.ExitCode(err) != 2 {
		t.Errorf("mongodb: %v", err)
	}
}
