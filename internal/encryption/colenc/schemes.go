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
	// Ore is order-revealing encryption (Lewi-Wu block ORE) of integers,
	// stored with a randomized AEAD ciphertext of the same value so the
	// client can read it back: range predicates, ORDER BY and (on
	// PostgreSQL with the encbench_ore extension) btree indexes work on it.
	Ore Scheme = "ore"
)

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case Rnd, Det, Ore, Ashe:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("unknown column encryption scheme %q: use rnd, det, ore or ashe", s)
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
	{Ore, "order-revealing encryption, Lewi-Wu block ORE (CCS 2016) over AES-256 and SHA-256, 8 blocks of 8 bits, key per column derived from the det keyset; stored with an AES-256-GCM ciphertext of the value (associated data = table and column)",
		"the order of all stored values of the column and, for every pair, the first 8-bit block in which they differ (so roughly how far apart they are: a shared 7-byte prefix means they differ by less than 256), hence equality and frequencies; each query reveals the order of its bounds against every value it is compared with; not the values themselves",
		"range predicates (<, <=, >, >=, BETWEEN), ORDER BY, MIN/MAX and equality on ciphertext; on PostgreSQL a btree index (operator class of the encbench_ore extension) answers them with an index scan; on MariaDB, which cannot index with a user comparison, the client filters (labelled in results)"},
	{Ashe, "additive symmetric homomorphic encryption, ASHE (Seabed, OSDI 2016): m + F(id) - F(id-1) mod 2^64, F = AES-256 as a PRF, key per column derived from the det keyset",
		"nothing about the values (each row has its own pseudorandom mask); which rows a sum covers; no integrity: the server can add to a value unnoticed, so use it for counters and amounts whose sums the application checks elsewhere",
		"SUM and adding constants (k = k + 1) on the server; a sum over contiguous row ids decrypts with two PRF calls; no comparison, equality or index"},
}
