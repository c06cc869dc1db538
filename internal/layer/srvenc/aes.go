package srvenc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

// aesFunctions is srvenc on MySQL and MariaDB: AES_ENCRYPT(value, key)
// and AES_DECRYPT. With two arguments they use the server's
// block_encryption_mode, aes-128-ecb by default on MySQL and the only
// mode MariaDB has before 11.2: AES-128 in ECB mode with PKCS#7 padding,
// the key folded by XOR into 16 bytes (MariaDB's and MySQL's manuals,
// AES_ENCRYPT).
type aesFunctions struct{ active }

const myKey = "@encbench_srvenc_key"

func (a *aesFunctions) Leakage() string { return "srvenc_mysql" }

// Require: the functions answer, in ECB mode (another mode needs an IV
// per value, which the two-argument form does not give).
func (a *aesFunctions) Require(ctx context.Context, env layer.Env) error {
	mode, err := a.mode(ctx, env.Session)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(mode, "-ecb") {
		return errs.Usage("srvenc calls AES_ENCRYPT(value, key), which needs block_encryption_mode aes-*-ecb; this server has %s: set it to aes-128-ecb for encbench's account, or run another variant", mode)
	}
	return nil
}

// mode is the server's block_encryption_mode (aes-128-ecb where the
// variable does not exist: MariaDB before 11.2).
func (a *aesFunctions) mode(ctx context.Context, s layer.Session) (string, error) {
	rows, err := s.Query(ctx, "SHOW VARIABLES LIKE 'block_encryption_mode'")
	if err != nil {
		return "", fmt.Errorf("asking the server for block_encryption_mode: %w", err)
	}
	if len(rows) == 0 || len(rows[0]) < 2 {
		return "aes-128-ecb", nil
	}
	return strings.ToLower(rows[0][1]), nil
}

// ColumnType holds PKCS#7 padded blocks: a full block more than n bytes
// of single-byte characters at most.
func (a *aesFunctions) ColumnType(chars int) string {
	return fmt.Sprintf("VARBINARY(%d)", 16*(chars/16+1))
}

func (a *aesFunctions) Write(expr string) string { return "AES_ENCRYPT(" + expr + ", " + myKey + ")" }
func (a *aesFunctions) Read(column string) string {
	return "AES_DECRYPT(" + column + ", " + myKey + ")"
}

// SessionSetup puts the key in a user variable of the session.
func (a *aesFunctions) SessionSetup() ([]string, error) {
	k, err := a.key()
	if err != nil {
		return nil, err
	}
	return []string{"SET " + myKey + " = UNHEX('" + k + "')"}, nil
}

// Convert makes the column binary, then replaces each value with its
// ciphertext (the undo and redo logs keep the old values until purged
// and recycled).
func (a *aesFunctions) Convert(c layer.Column) []string {
	return []string{
		fmt.Sprintf("ALTER TABLE %s MODIFY %s %s NOT NULL", c.Table, c.Name, a.ColumnType(c.Chars)),
		fmt.Sprintf("UPDATE %s SET %s = %s", c.Table, c.Name, a.Write(c.Name)),
	}
}

// Prove reads stored values raw: each is a whole number of AES blocks,
// one more than its plaintext fills (PKCS#7), does not hold its
// plaintext, and decrypts under the run's key; and the column is binary.
func (a *aesFunctions) Prove(ctx context.Context, env layer.Env) (proof.LayerProof, error) {
	out := proof.LayerProof{Source: "stored values read raw, AES_DECRYPT, information_schema.COLUMNS", Facts: map[string]string{}}
	if err := startSession(ctx, env.Session, a.SessionSetup); err != nil {
		return out, err
	}
	mode, err := a.mode(ctx, env.Session)
	if err != nil {
		return out, err
	}
	var types []string
	for _, c := range env.Columns {
		rows, err := env.Session.Query(ctx, fmt.Sprintf("SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '%s' AND COLUMN_NAME = '%s'", c.Table, c.Name))
		if err != nil {
			return out, fmt.Errorf("reading %s.%s's type: %w", c.Table, c.Name, err)
		}
		if len(rows) == 0 || !strings.EqualFold(rows[0][0], "varbinary") {
			return out, fmt.Errorf("%s.%s is not stored as VARBINARY, so it does not hold ciphertext (was the data prepared with srvenc?)", c.Table, c.Name)
		}
		sample, err := readSample(ctx, env.Session, fmt.Sprintf("SELECT HEX(%s), %s FROM %s LIMIT %d", c.Name, a.Read(c.Name), c.Table, sampleRows))
		if err != nil {
			return out, fmt.Errorf("reading %s.%s back: %w", c.Table, c.Name, err)
		}
		proved(&out, isPaddedBlocks, sample)
		if !slices.Contains(types, rows[0][0]) {
			types = append(types, rows[0][0])
		}
	}
	out.Facts["functions"] = "AES_ENCRYPT(value, key), AES_DECRYPT"
	out.Facts["cipher"] = strings.ToUpper(mode) + " with PKCS#7 padding, the key folded by XOR to 128 bits; no IV, no integrity check"
	out.Facts["key"] = "256 random bits, sent once per session (SET " + myKey + ")"
	out.Facts["columns"] = columnNames(env.Columns) + " as " + strings.ToUpper(strings.Join(types, ", "))
	return finish(out, env.Columns)
}

func isPaddedBlocks(c check) bool {
	return len(c.raw) == 16*(len(c.plain)/16+1)
}
