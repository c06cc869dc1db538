package lang

import (
	"maps"
	"slices"
	"strings"
)

// builtins are pgbench's built-in scripts, as its manual gives tpcb-like
// in full ("What Is the Transaction Actually Performed in pgbench?"):
// simple-update leaves out the tellers' and branches' updates, and
// select-only keeps the one SELECT.
var builtins = map[string]string{
	"tpcb-like": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"simple-update": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"select-only": `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
}

// Builtin is a built-in script's text for a server whose SQL ends a
// transaction with END (PostgreSQL) or only with COMMIT (MySQL, MariaDB).
func Builtin(name string, endIsCommit bool) (string, bool) {
	text, ok := builtins[name]
	if ok && !endIsCommit {
		text = strings.Replace(text, "\nEND;\n", "\nCOMMIT;\n", 1)
	}
	return text, ok
}

// Builtins are the built-in scripts' names.
func Builtins() []string { return slices.Sorted(maps.Keys(builtins)) }
