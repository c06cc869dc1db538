package srvenc

import (
	"context"
	"fmt"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

// pgcrypto is srvenc on PostgreSQL: pgp_sym_encrypt with AES-256, the
// OpenPGP symmetric-key construction of RFC 4880 (a Symmetric-Key
// Encrypted Session Key packet, section 5.3, with an iterated and salted
// S2K, section 3.7.1.3, then Symmetrically Encrypted Integrity Protected
// Data, section 5.13, and its modification detection code, 5.14), as
// pgcrypto's manual (F.26.3) describes it.
type pgcrypto struct {
	active
	// salted: S2K mode 1 (3.7.1.2), one salted hash per value, in place
	// of pgcrypto's default, mode 3 (iterated and salted).
	salted bool
}

// keySetting is the session setting that holds the passphrase.
const keySetting = "encbench.srvenc_key"

const pgKey = "current_setting('" + keySetting + "')"

func (p *pgcrypto) Leakage() string { return "srvenc_pg" }

// Require: the pgcrypto extension in the database. encbench creates it
// only in its own sandbox; a server of the user's is not changed.
func (p *pgcrypto) Require(ctx context.Context, env layer.Env) error {
	v, err := p.extension(ctx, env.Session)
	if err != nil || v != "" {
		return err
	}
	if !env.Sandbox {
		return errs.Usage("srvenc needs the pgcrypto extension in this database, and it is missing: have its owner run CREATE EXTENSION pgcrypto (PostgreSQL's contrib package), or run another variant")
	}
	if err := env.Session.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pgcrypto"); err != nil {
		return fmt.Errorf("creating the pgcrypto extension in the sandbox: %w", err)
	}
	return nil
}

func (p *pgcrypto) extension(ctx context.Context, s layer.Session) (string, error) {
	rows, err := s.Query(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'pgcrypto'")
	if err != nil {
		return "", fmt.Errorf("asking the server for pgcrypto: %w", err)
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return "", nil
	}
	return rows[0][0], nil
}

func (p *pgcrypto) ColumnType(int) string { return "bytea" }

func (p *pgcrypto) Write(expr string) string {
	return "pgp_sym_encrypt(" + expr + ", " + pgKey + ", '" + p.options() + "')"
}

// options are pgp_sym_encrypt's: AES-256, and the S2K mode when not
// pgcrypto's default (its manual, F.26.3.9).
func (p *pgcrypto) options() string {
	if p.salted {
		return "cipher-algo=aes256, s2k-mode=1"
	}
	return "cipher-algo=aes256"
}

func (p *pgcrypto) Read(column string) string {
	return "pgp_sym_decrypt(" + column + ", " + pgKey + ")"
}

// SessionSetup sets the passphrase for the session: sent once per
// connection, seen by the server, never written into a statement.
func (p *pgcrypto) SessionSetup() ([]string, error) {
	k, err := p.key()
	if err != nil {
		return nil, err
	}
	return []string{"SET " + keySetting + " = '" + k + "'"}, nil
}

// Convert rewrites the column as bytea holding its ciphertext (ALTER
// TABLE ... TYPE rewrites the table, so no plaintext tuple stays behind
// in the heap; the WAL of the load still holds it until recycled).
func (p *pgcrypto) Convert(c layer.Column) []string {
	return []string{
		fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s DROP DEFAULT", c.Table, c.Name),
		fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE bytea USING %s", c.Table, c.Name, p.Write(c.Name+"::text")),
	}
}

// Prove reads stored values raw: each is an OpenPGP message whose first
// packet is a version 4 Symmetric-Key Encrypted Session Key packet for
// AES-256 with the chosen S2K (RFC 4880 5.3: tag 3, version 4,
// algorithm 9, then the S2K specifier, 3.7.1), does not hold
// its plaintext, and decrypts under the run's key.
func (p *pgcrypto) Prove(ctx context.Context, env layer.Env) (proof.LayerProof, error) {
	out := proof.LayerProof{Source: "stored values read raw, pgp_sym_decrypt", Facts: map[string]string{}}
	if err := startSession(ctx, env.Session, p.SessionSetup); err != nil {
		return out, err
	}
	v, err := p.extension(ctx, env.Session)
	if err != nil {
		return out, err
	}
	if v == "" {
		return out, errs.Usage("srvenc needs the pgcrypto extension in this database, and it is missing")
	}
	for _, c := range env.Columns {
		sample, err := readSample(ctx, env.Session, fmt.Sprintf("SELECT encode(%s, 'hex'), %s FROM %s LIMIT %d", c.Name, p.Read(c.Name), c.Table, sampleRows))
		if err != nil {
			return out, fmt.Errorf("reading %s.%s back: %w", c.Table, c.Name, err)
		}
		proved(&out, func(c check) bool { return isPGPAES256(c) && c.raw[4] == p.s2kMode() }, sample)
	}
	out.Facts["functions"] = "pgcrypto " + v + ": pgp_sym_encrypt(value, key, '" + p.options() + "'), pgp_sym_decrypt"
	out.Facts["cipher"] = "OpenPGP AES-256 with a salted, iterated S2K per value (RFC 4880 3.7.1.3, 5.3, 5.13)"
	if p.salted {
		out.Facts["cipher"] = "OpenPGP AES-256 with a salted S2K per value (RFC 4880 3.7.1.2, 5.3, 5.13)"
	}
	out.Facts["key"] = "passphrase of 256 random bits, sent once per session (SET " + keySetting + ")"
	out.Facts["columns"] = columnNames(env.Columns) + " as bytea"
	return finish(out, env.Columns)
}

// s2kMode is the S2K specifier's first byte the packets must carry
// (RFC 4880 3.7.1: 1 salted, 3 iterated and salted).
func (p *pgcrypto) s2kMode() byte {
	if p.salted {
		return 1
	}
	return 3
}

func isPGPAES256(c check) bool {
	r := c.raw
	return len(r) > 4 && r[0] == 0xc3 && r[2] == 4 && r[3] == 9
}
