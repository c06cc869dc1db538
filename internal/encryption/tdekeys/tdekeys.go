// Package tdekeys writes and checks the key files of MariaDB's
// file_key_management plugin: lines "id;hex key", 256-bit keys from
// crypto/rand, the file readable by its owner only.
package tdekeys

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/errs"
)

// Generate writes a key file with keys 1 and 2 (1 encrypts tables, 2 the
// logs and temporary files) with mode 0600.
func Generate(path string) error {
	var b strings.Builder
	for id := 1; id <= 2; id++ {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("generating key: %w", err)
		}
		fmt.Fprintf(&b, "%d;%s\n", id, hex.EncodeToString(key))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("creating key file: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("writing key file: %w", err)
	}
	return f.Close()
}

// Check refuses a key file that others can read, or that is not in
// file_key_management's format with a 128, 192 or 256-bit key 1.
func Check(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return errs.Usage("cannot use TDE key file: %w", err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return errs.Usage("TDE key file %s is a symbolic link: give the key file's own path", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return errs.Usage("TDE key file %s is readable by group or others (mode %v): `chmod 600 %s`", path, st.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return errs.Usage("cannot read TDE key file: %w", err)
	}
	ids := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, keyHex, ok := strings.Cut(line, ";")
		id, idErr := strconv.Atoi(idText)
		key, keyErr := hex.DecodeString(keyHex)
		if !ok || idErr != nil || id < 1 || keyErr != nil || (len(key) != 16 && len(key) != 24 && len(key) != 32) {
			return errs.Usage("TDE key file %s line %d is not \"<id>;<32, 48 or 64 hex digits>\"", path, n)
		}
		ids[id] = true
	}
	if !ids[1] {
		return errs.Usage("TDE key file %s has no key with id 1 (the one InnoDB encrypts tables with)", path)
	}
	return nil
}
