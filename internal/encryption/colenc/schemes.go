package colenc

import "fmt"

// Scheme is how a column is encrypted.
type Scheme string

const (
	// Rnd is randomized AEAD (AES-256-GCM): nothing but length leaks; the
	// server can only store and return the value.
	Rnd Scheme = "rnd"
	// Det is deterministic AEAD (AES-SIV): equal plaintexts give equal
	// ciphertexts, so equality predicates, joins, GROUP BY and unique
	// indexes work on ciphertext.
	Det Scheme = "det"
	// Ore is order-revealing encryption (Lewi-Wu block ORE) of integers
	// whose synthetic nonce also carries the value for the client: range
	// predicates, ORDER BY and (on PostgreSQL with the encbench_ore
	// extension) btree indexes work on it.
	Ore Scheme = "ore"
	// OreDet labels a copy of an ore column written bound to the column
	// only (sbtest's k_value): equal values are equal bytes, so the
	// server's index may keep one entry per value. Not a --encrypt choice.
	OreDet Scheme = "ore_det"
	// RndColumn is rnd bound to the table and column but to no row: a
	// script's statements do not tell the client which row a value is
	// for (encbench run script --encrypt c=rnd). Not a --encrypt choice
	// of the built-in workloads.
	RndColumn Scheme = "rnd_column"
)

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case Rnd, Det, Ore, Ashe:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("unknown column encryption scheme %q: use rnd, det, ore or ashe", s)
}

// Schemes are the schemes a report states the leakage of. Each one's
// statement (what the database server learns from what it stores, from
// the queries it answers, and over time from the writes it sees) is in
// the message catalogue beside its translations, as leak.<scheme>.primitive,
// .reveals and .enables (internal/locale/messages/en.json), and
// TestLeakageStatementsAreExact holds it to the constructions here.
var Schemes = []Scheme{Rnd, RndColumn, Det, Ore, OreDet, Ashe}
