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
)

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case Rnd, Det:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("unknown column encryption scheme %q: use rnd or det", s)
}

// Leakage says, per scheme, what the database server learns.
var Leakage = []struct {
	Scheme    Scheme
	Primitive string
	Reveals   string
	Enables   string
}{
	{Rnd, "AEAD AES-256-GCM (Tink), 12-byte random nonce, associated data = table, column and row key",
		"the length of each value (plus a fixed 28-byte overhead and the Tink key id) and which values are NULL; nothing about equality or order",
		"storage and retrieval only; every predicate, sort and aggregate on the column runs in the client after decryption"},
	{Det, "deterministic AEAD AES-SIV with a 512-bit key (Tink), associated data = table and column",
		"which values are equal (within the column), hence their frequencies, each value's length and which are NULL; not order",
		"equality lookups, GROUP BY, DISTINCT and unique indexes on ciphertext; a join only between values of the same column, since each column has its own associated data; a value is not bound to its row"},
}
