package tdekeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/errs"
)

func TestGeneratedKeyFilePassesCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	if err := Generate(path); err != nil {
		t.Fatal(err)
	}
	if err := Check(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1;") || len(lines[0]) != 2+64 {
		t.Fatalf("unexpected key file %q", data)
	}
	if err := Generate(path); err == nil {
		t.Fatal("Generate overwrote an existing key file")
	}
}

func TestCheckRejects(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		content string
		mode    os.FileMode
		want    string
	}{
		"world readable": {"1;" + strings.Repeat("00", 32), 0o644, "readable by group or others"},
		"not hex":        {"1;xyz", 0o600, "is not"},
		"short key":      {"1;abcd", 0o600, "is not"},
		"no key 1":       {"2;" + strings.Repeat("00", 32), 0o600, "no key with id 1"},
	}
	for name, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(c.content+"\n"), c.mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, c.mode)
		err := Check(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || errs.ExitCode(err) != 2 {
			t.Errorf("%s: %v, want a usage error mentioning %q", name, err, c.want)
		}
	}
	if err := Check(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing key file passed")
	}
}

func TestCheckRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "keyfile")
	if err := Generate(key); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	if err := Check(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a key file through a link: %v", err)
	}
	if err := Check(key); err != nil {
		t.Fatal(err)
	}
}
