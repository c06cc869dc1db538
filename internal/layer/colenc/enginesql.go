package colenc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/errs"
)

// EngineSQL is the per-engine part of client-side column encryption: how a
// server stores ciphertext, compares the order-revealing values, cuts the
// row identity out of one, and takes ciphertexts as parameters.
type EngineSQL struct {
	// BinaryType is the type of a binary column of at most n bytes.
	BinaryType func(n int) string
	// OreType is the column type whose comparisons order encbench's ORE
	// values on the server ("" when the server cannot: the client filters).
	OreType string
	// OreSetup makes OreType available in the database (run by prepare).
	OreSetup string
	// OreDetType is the column type for ORE values bound to their column
	// only (equal plaintexts, equal bytes): its index may hold one entry
	// per distinct value ("" when the server has none).
	OreDetType string
	// OreValueCheck is a column constraint with one %s for the column that
	// keeps query bounds out of an OreType column ("" when none).
	OreValueCheck string
	// Substring is an expression for n bytes of a binary expression from
	// byte from (1-based).
	Substring func(expr string, from, n int) string
	// ListAgg is an aggregate of an integer expression's values as one
	// comma-separated string, in no set order.
	ListAgg func(expr string) string
	// ListAggSetup runs once on a session before ListAgg is used ("":
	// none): MySQL cuts GROUP_CONCAT at 1,024 bytes by default.
	ListAggSetup string
	// BytesParams runs once on a session whose string parameters are
	// ciphertexts or ASCII ("": none needed): MySQL otherwise takes them
	// as text in the client's character set and scans each one to check it.
	BytesParams string
}

// dialects are the engines (by engine kind) whose tables the layer
// encrypts. PostgreSQL compares ORE values on the server through
// encbench's extension (make ore-ext); MySQL and MariaDB have no such
// type, so the client filters.
var dialects = map[string]EngineSQL{
	"postgres": {
		BinaryType:    func(int) string { return "BYTEA" },
		OreType:       "ore",
		OreDetType:    "ore_det",
		OreSetup:      "CREATE EXTENSION IF NOT EXISTS encbench_ore; ALTER EXTENSION encbench_ore UPDATE",
		OreValueCheck: "CHECK (ore_is_value(%s))",
		Substring: func(expr string, from, n int) string {
			return fmt.Sprintf("substring(%s::bytea from %d for %d)", expr, from, n)
		},
		ListAgg: func(expr string) string { return "string_agg(" + expr + "::text, ',')" },
	},
	"mysql": {
		BinaryType: func(n int) string { return fmt.Sprintf("VARBINARY(%d)", n) },
		Substring:  func(expr string, from, n int) string { return fmt.Sprintf("SUBSTRING(%s, %d, %d)", expr, from, n) },
		ListAgg:    func(expr string) string { return "GROUP_CONCAT(" + expr + " SEPARATOR ',')" },
		// 1 MiB (MariaDB's default): 50,000 identifiers of 20 digits.
		ListAggSetup: "SET SESSION group_concat_max_len = 1048576",
		BytesParams:  "SET SESSION character_set_client = binary",
	},
}

// SQLFor is the layer's part for an engine kind (postgres, mysql).
func SQLFor(kind string) (EngineSQL, error) {
	d, ok := dialects[kind]
	if !ok {
		return EngineSQL{}, errs.Usage("client-side column encryption does not run on %s servers (it runs on %s)", kind, strings.Join(slices.Sorted(maps.Keys(dialects)), ", "))
	}
	return d, nil
}
