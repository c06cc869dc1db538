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
)

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	switch Scheme(s) {
	case Rnd, Det, Ore, Ashe:
		return Scheme(s), nil
	}
	return "", fmt.Errorf("unknown column encryption scheme %q: use rnd, det, ore or ashe", s)
}

// Leakage says, per scheme, what the database server learns: from what
// it stores, from the queries it answers, and over time from the writes it
// sees (old row versions stay in heap pages and the write-ahead log).
var Leakage = []struct {
	Scheme    Scheme
	Primitive string
	Reveals   string
	Enables   string
}{
	{Rnd, "AEAD AES-256-GCM (Tink), 12-byte random nonce, associated data = table, column and row key",
		"each value's length (plus a fixed 28-byte overhead and the Tink key id) and which values are NULL; nothing about equality or order. Over time: which rows' values were rewritten and when (every write is a new ciphertext, even of an unchanged value), not whether the value changed",
		"storage and retrieval only; every predicate, sort and aggregate on the column runs in the client after decryption"},
	{Det, "deterministic AEAD AES-SIV with a 512-bit key (Tink), associated data = table and column",
		"which values are equal within the column, hence each value's frequency (with a known distribution, the most frequent values can be named), each value's length and which are NULL; not order. Over time: whether an update wrote a value that was there before (same ciphertext) and which rows hold it",
		"equality lookups, GROUP BY, DISTINCT and unique indexes on ciphertext; a join only between values of the same column, since each column has its own associated data; a value is not bound to its row"},
	{Ore, "order-revealing encryption, Lewi-Wu block ORE (CCS 2016, section 4), 8 blocks of 8 bits, over AES only: the PRF is AES-256, the hash H the low bit of AES-128 keyed by the ciphertext's nonce (as CipherStash's ore.rs), one bit per right-part slot; the nonce is synthetic: AES-256 of the value and a 64-bit check of the row key and the left part's last block (encode-then-encipher, Bellare-Rogaway 2000), which lets the client read the value back with one AES call; every stored value ends with a 128-bit HMAC-SHA256 tag, under a MAC key of its column, over the whole value and its row key, checked on every read; keys and key id per column derived from the det keyset; 430 bytes per value",
		"the order of every pair of stored values and the first 8-bit block in which they differ (a shared 7-byte prefix means they differ by less than 256), hence equality and frequencies. On a dense column or one whose distribution is known this is the values themselves: sbtest's id is 1..N, so the i-th smallest ciphertext is id i and the server reads every id exactly; a sample of known plaintexts lets it place the others. Each query bound reveals its order against every value it is compared with. Over time: the position and first-differing block of every value written, which new values equal old ones (left parts are deterministic), and, because the nonce is synthetic, when the same value is written again to the same row (the stored bytes repeat). On reading, the client checks the MAC over every byte of the value and its row: a value changed in any byte, or moved to another row, fails except with probability 2^-128",
		"range predicates (<, <=, >, >=, BETWEEN), ORDER BY, MIN/MAX and equality on ciphertext; on PostgreSQL a btree index (operator class of the encbench_ore extension) answers them with an index scan; on MariaDB, which cannot index with a user comparison, the client filters (labelled in results). Against a writer to the column, the extension refuses malformed values, comparisons whose two directions disagree (unless that pair of left parts was already compared at the same call site, whose answer it remembers) and two values whose last left blocks are equal while the rest differ; a value built from public data (stored values' left blocks mixed, right bits set from the others' left parts and its own nonce so both directions agree) passes every check the server can make yet may order inconsistently (a < b < forged < a), so that index and sequential scans return different rows, which amcheck cannot see; the client detects such a value only when it reads it (its MAC), and never a row that a wrong comparison left out of a result"},
	{OreDet, "the ore scheme's construction and format (430 bytes per value) under the copy's own column key, with the synthetic nonce's check and the MAC taken over the value only, not a row key: a copy of an ore column kept for range sums by value (sbtest's k_value, --k-sum-by-value)",
		"what ore reveals about the column it copies (the order of every pair, the first differing 8-bit block, hence equality and frequencies), and no other plaintext: it orders the same values as the column beside it. In addition, equal values are equal bytes, so anyone who reads the server's files sees each value's frequency by exact match without the comparison, and the index shows how many rows hold each value. The copy is bound to no row: the server can move a copy to another row, or put back an old one, undetected by the client, and the client takes the server's per-value counts on trust, so a sum by value is only as right as the server is honest. Over time: which rows were written with a value already present anywhere in the column (the bytes repeat), besides everything ore reveals over time",
		"the same predicates as ore; on PostgreSQL the column type ore_det (encbench_ore 3.1), whose btree operator class declares equal values equal bytes, so its index is deduplicated (one entry per distinct value with the list of its rows) and a range sum returns one (value, count) pair per distinct value, which the client decrypts once (then caches) and adds as value x count"},
	{Ashe, "additive symmetric homomorphic encryption, ASHE (Seabed, OSDI 2016, section 4.1): m*2^16 + F(id) - F(id-1) mod 2^64, F = AES-256 as a PRF, a fresh identifier per encryption stored beside the value, key per column and per prepared data set derived from the det keyset and a random 128-bit data set nonce (stored sealed with AES-GCM beside the data), so two prepares never share a mask; the client keeps its own ledger of reserved identifiers and refuses a server counter below it",
		"nothing about a value from its ciphertext (each has its own pseudorandom mask). The identifiers: they are handed out in increasing order, so the server learns the order in which values were written (loaded rows in id order, later writes after them; an ashe copy of an ore column, such as sbtest's k_sum, takes its loaded identifiers in the order of the values, which the ore column reveals already) and, from the identifiers a sum is decrypted with, which rows it covered. Over time: k = k + c on the server keeps the identifier, so the server learns the difference between the versions, c, which it applied itself; a value the client writes anew gets a fresh identifier, so old versions reveal no difference. No integrity: a 16-bit check field makes a sum decrypted with the wrong identifiers or key fail (except with probability 2^-16), but the server can add multiples of 2^16 (whole units) to a value unnoticed. Identifier reuse, which would reveal the difference of two values, needs the client's cooperation: a server that sets the counter back is refused by the ledger, which covers the clients sharing it (one machine; generators elsewhere keep their own)",
		"SUM and adding constants (k = k + 1, sent as + 2^16) on the server; a sum over a run of consecutive identifiers decrypts with two PRF calls, over scattered ones with two per run; no comparison, equality or index"},
}
