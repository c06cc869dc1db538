// Package srvenc is server-side column encryption: the client sends
// plaintext and a key, and the server encrypts a workload's non-key text
// columns on write and decrypts them on read, with the functions teams
// use for it: pgcrypto's pgp_sym_encrypt and pgp_sym_decrypt on
// PostgreSQL, AES_ENCRYPT and AES_DECRYPT on MySQL and MariaDB.
//
// The key is 32 random bytes kept in a file of the user's (0600), created
// on first use; each connection sends it once, as a session setting, and
// every statement names that setting rather than carrying the key.
package srvenc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

func init() { layer.Register(Layer{}) }

// Layer describes server-side column encryption.
type Layer struct{}

func (Layer) Name() string { return "srvenc" }
func (Layer) Summary() string {
	return "server-side column encryption of the workload's non-key text columns (sysbench's c and pad): pgcrypto's pgp_sym_encrypt (AES-256) on PostgreSQL, AES_ENCRYPT (AES-128-ECB) on MySQL and MariaDB; the server sees the key and every plaintext"
}
func (Layer) Where() layer.Where { return layer.InColumns }
func (Layer) Options() []layer.Option {
	return []layer.Option{
		{Key: "key-file", Help: "the file holding the key (32 random bytes, hex; created 0600 on first use); default: encbench/srvenc.key in the user's configuration directory"},
		{Key: "s2k", Values: []string{"iterated", "salted"}, Help: "PostgreSQL: how pgcrypto turns the passphrase into each value's key: iterated and salted (its default, RFC 4880 3.7.1.3: tens of thousands of SHA-1 bytes per call, made for weak passwords) or salted only (3.7.1.2: one hash, enough for encbench's random 256-bit passphrase)"},
	}
}
func (Layer) Aliases() []layer.Alias { return nil }
func (Layer) Engines() []string      { return []string{"postgres", "mariadb"} }
func (Layer) Check(map[string]string) error {
	return nil
}

// OnServer: the server runs as it is; only the tables and statements change.
func (Layer) OnServer() bool { return false }

// Open picks the engine's functions.
func (Layer) Open(s layer.Spec, engineKind string) (layer.Active, error) {
	keyFile := s.Options["key-file"]
	if keyFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, errs.Usage("srvenc: no configuration directory to keep its key in (%v): give srvenc:key-file=PATH", err)
		}
		keyFile = filepath.Join(dir, "encbench", "srvenc.key")
	}
	base := active{spec: s, keyFile: keyFile}
	switch engineKind {
	case "postgres":
		return &pgcrypto{active: base, salted: s.Options["s2k"] == "salted"}, nil
	case "mysql":
		if s.Options["s2k"] != "" {
			return nil, errs.Usage("srvenc:s2k= is pgcrypto's choice; AES_ENCRYPT uses the key as it is")
		}
		return &aesFunctions{base}, nil
	}
	return nil, errs.Usage("srvenc runs on PostgreSQL (pgcrypto) and on MySQL or MariaDB (AES_ENCRYPT); a %s server has neither", engineKind)
}

// active is what both engines' parts share: the spec and the key.
type active struct {
	spec    layer.Spec
	keyFile string
}

func (a active) Spec() layer.Spec { return a.spec }

// key reads the key file, creating it with a fresh key the first time.
func (a active) key() (string, error) {
	b, err := os.ReadFile(a.keyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return a.newKey()
	}
	if err != nil {
		return "", fmt.Errorf("srvenc: reading its key: %w", err)
	}
	k := strings.TrimSpace(string(b))
	if raw, err := hex.DecodeString(k); err != nil || len(raw) != 32 {
		return "", errs.Usage("srvenc: %s does not hold a key (64 hex digits): remove it to have a new one made, or give srvenc:key-file=PATH", a.keyFile)
	}
	return k, nil
}

func (a active) newKey() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("srvenc: drawing a key: %w", err)
	}
	k := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(filepath.Dir(a.keyFile), 0o700); err != nil {
		return "", fmt.Errorf("srvenc: creating the key's directory: %w", err)
	}
	// O_EXCL: two loaders starting at once keep the first key.
	f, err := os.OpenFile(a.keyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return a.key()
	}
	if err != nil {
		return "", fmt.Errorf("srvenc: creating its key file: %w", err)
	}
	if _, err := f.WriteString(k + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("srvenc: writing its key file: %w", err)
	}
	return k, f.Close()
}

// sampleRows is how many rows of each encrypted column a proof reads.
const sampleRows = 20

// check is one stored value read raw beside what the server decrypted it to.
type check struct{ raw, plain []byte }

// readSample reads a column's stored bytes (hex) and their plaintext.
func readSample(ctx context.Context, s layer.Session, sql string) ([]check, error) {
	rows, err := s.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	out := make([]check, 0, len(rows))
	for _, r := range rows {
		if len(r) < 2 {
			return nil, fmt.Errorf("the sample query returned %d columns, not 2", len(r))
		}
		raw, err := hex.DecodeString(r[0])
		if err != nil {
			return nil, fmt.Errorf("a stored value is not the hex the query asked for: %w", err)
		}
		out = append(out, check{raw: raw, plain: []byte(r[1])})
	}
	return out, nil
}

// proved counts a proof's values; an error unless all were ciphertext.
func proved(p *proof.LayerProof, ok func(check) bool, sample []check) {
	for _, c := range sample {
		p.Checked++
		// A ciphertext never holds its plaintext, and decrypts to one.
		if len(c.plain) > 0 && !strings.Contains(string(c.raw), string(c.plain)) && ok(c) {
			p.Proven++
		}
	}
}

func finish(p proof.LayerProof, columns []layer.Column) (proof.LayerProof, error) {
	switch {
	case len(columns) == 0:
		return p, errors.New("the workload named no column to encrypt")
	case p.Checked == 0:
		return p, errors.New("the tables hold no rows to read back")
	case p.Proven < p.Checked:
		return p, fmt.Errorf("%d of %d stored values read back raw are not ciphertexts of their plaintext under the run's key (was the data prepared with srvenc and this key?)", p.Checked-p.Proven, p.Checked)
	}
	return p, nil
}

func columnNames(columns []layer.Column) string {
	var names []string
	for _, c := range columns {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// startSession runs a part's session statements (its key) on the proof's
// connection, as every worker's connection runs them.
func startSession(ctx context.Context, s layer.Session, setup func() ([]string, error)) error {
	stmts, err := setup()
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := s.Exec(ctx, st); err != nil {
			return fmt.Errorf("setting the session's key: %w", err)
		}
	}
	return nil
}
