package script

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
)

// encSpec is --encrypt: the columns the client encrypts, by table.
type encSpec map[string]map[string]colenc.Scheme

// parseEncrypt reads TABLE.COLUMN=SCHEME entries, comma-separated.
func parseEncrypt(values []string) (encSpec, error) {
	spec := encSpec{}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			col, scheme, ok := strings.Cut(item, "=")
			table, name, dotted := strings.Cut(col, ".")
			if !ok || !dotted || table == "" || name == "" {
				return nil, fmt.Errorf("--encrypt %q: give TABLE.COLUMN=SCHEME, for example pgbench_accounts.aid=det", item)
			}
			s := colenc.Scheme(strings.ToLower(scheme))
			if s != colenc.Det && s != colenc.Rnd {
				return nil, fmt.Errorf("--encrypt %s: a script's columns take det (equality on the server) or rnd (none); ore and ashe need the server-side support of the enc_* workloads", item)
			}
			table, name = strings.ToLower(table), strings.ToLower(name)
			if spec[table] == nil {
				spec[table] = map[string]colenc.Scheme{}
			}
			spec[table][name] = s
		}
	}
	return spec, nil
}

// String is the spec in --encrypt's form, in a stable order.
func (s encSpec) String() string {
	var items []string
	for _, t := range slices.Sorted(maps.Keys(s)) {
		for _, c := range slices.Sorted(maps.Keys(s[t])) {
			items = append(items, t+"."+c+"="+string(s[t][c]))
		}
	}
	return strings.Join(items, ",")
}

// columns are the encrypted columns in a stable order.
func (s encSpec) columns() []column {
	var out []column
	for _, t := range slices.Sorted(maps.Keys(s)) {
		for _, c := range slices.Sorted(maps.Keys(s[t])) {
			out = append(out, column{t, c, s[t][c]})
		}
	}
	return out
}

// column is an encrypted column a statement uses.
type column struct {
	table, name string
	scheme      colenc.Scheme
}

// ref is the column as the cipher sees it: a script's rnd values are
// bound to their column but to no row (rnd_column), since a statement
// does not tell the client which row a value is for.
func (c column) ref() colenc.Column {
	s := c.scheme
	if s == colenc.Rnd {
		s = colenc.RndColumn
	}
	return colenc.Column{Table: c.table, Name: c.name, Scheme: s}
}

// statementEnc is what the client does for one statement: which of its
// parameters it encrypts for which column, and which result columns
// (by name) it decrypts.
type statementEnc struct {
	params  []*column
	results map[string]column
}

type sqlTok struct {
	kind byte // 'i' identifier or keyword, '?' placeholder, 'o' operator, 'l' literal, '(' ')' ','
	text string
}

// tokenize splits a statement (its variables already ? placeholders)
// into identifiers (lowercased, a.b kept whole), placeholders, operators
// and literals.
func tokenize(sql string) []sqlTok {
	var out []sqlTok
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(sql)
			}
		case c == '\'':
			j := i + 1
			for j < len(sql) && (sql[j] != '\'' || j+1 < len(sql) && sql[j+1] == '\'') {
				if sql[j] == '\'' {
					j++
				}
				j++
			}
			out = append(out, sqlTok{'l', sql[i:min(j+1, len(sql))]})
			i = j + 1
		case c == '"' || c == '`':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				j = len(sql) - i - 1
			}
			out = append(out, sqlTok{'i', strings.ToLower(sql[i+1 : i+1+j])})
			i += j + 2
		case c == '?':
			out = append(out, sqlTok{'?', "?"})
			i++
		case c == '(' || c == ')' || c == ',':
			out = append(out, sqlTok{c, string(c)})
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(sql) && (sql[j] >= '0' && sql[j] <= '9' || sql[j] == '.') {
				j++
			}
			out = append(out, sqlTok{'l', sql[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] == '.' || sql[j] == '$' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9' || sql[j] >= 0x80) {
				j++
			}
			out = append(out, sqlTok{'i', strings.ToLower(sql[i:j])})
			i = j
		default:
			op := string(c)
			for _, two := range []string{"<=", ">=", "<>", "!=", "||", "::"} {
				if strings.HasPrefix(sql[i:], two) {
					op = two
				}
			}
			out = append(out, sqlTok{'o', op})
			i += len(op)
		}
	}
	return out
}

var keywords = map[string]bool{
	"select": true, "from": true, "where": true, "and": true, "or": true, "not": true, "update": true, "set": true,
	"insert": true, "into": true, "values": true, "delete": true, "join": true, "on": true, "as": true, "in": true,
	"between": true, "like": true, "is": true, "null": true, "order": true, "group": true, "by": true, "having": true,
	"limit": true, "offset": true, "returning": true, "inner": true, "left": true, "right": true, "outer": true,
	"cross": true, "distinct": true, "for": true, "begin": true, "commit": true, "end": true, "rollback": true,
	"with": true, "using": true, "case": true, "when": true, "then": true, "else": true, "asc": true, "desc": true,
	"true": true, "false": true, "current_timestamp": true, "now": true, "exists": true, "union": true, "all": true,
}

var arithmetic = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "||": true}

// analyzeStatement finds, in one statement, each use of an encrypted
// column and decides what the client does for it, or refuses a use the
// scheme cannot serve: a range, an order, arithmetic or an aggregate on
// ciphertext, an equality on a rnd column (its equal values differ), a
// comparison with a value the client does not encrypt.
func analyzeStatement(sql string, spec encSpec) (*statementEnc, error) {
	toks := tokenize(sql)
	tables := map[string]string{} // table or alias -> table
	clause := ""
	for i, t := range toks {
		if t.kind != 'i' {
			continue
		}
		switch t.text {
		case "from", "join", "update", "into":
			if i+1 < len(toks) && toks[i+1].kind == 'i' && !keywords[toks[i+1].text] {
				name := toks[i+1].text
				tables[name] = name
				if i+2 < len(toks) && toks[i+2].kind == 'i' && !keywords[toks[i+2].text] {
					tables[toks[i+2].text] = name
				} else if i+3 < len(toks) && toks[i+2].text == "as" && toks[i+3].kind == 'i' {
					tables[toks[i+3].text] = name
				}
			}
		}
	}
	enc := &statementEnc{results: map[string]column{}}
	resolve := func(ident string) (column, bool, error) {
		qual, name, dotted := strings.Cut(ident, ".")
		if !dotted {
			name, qual = qual, ""
		}
		var found []column
		for alias, table := range tables {
			if qual != "" && alias != qual {
				continue
			}
			if s, ok := spec[table][name]; ok && (qual != "" || alias == table) {
				found = append(found, column{table, name, s})
			}
		}
		switch len(found) {
		case 0:
			return column{}, false, nil
		case 1:
			return found[0], true, nil
		}
		return column{}, false, fmt.Errorf("%s is encrypted in more than one of the statement's tables: qualify it", name)
	}
	params := 0
	paramAt := map[int]int{} // token index of a ? -> its ordinal
	for i, t := range toks {
		if t.kind == '?' {
			paramAt[i] = params
			params++
		}
	}
	enc.params = make([]*column, params)
	bind := func(at int, c column) {
		cc := c
		enc.params[paramAt[at]] = &cc
	}
	insertCols := []column{}
	var insertNames []string
	inInsertList := false
	for i, t := range toks {
		if t.kind == 'i' && keywords[t.text] {
			switch t.text {
			case "select", "where", "set", "values", "having", "on", "returning":
				clause = t.text
			case "order", "group":
				clause = t.text
			case "into":
				clause = "into"
			}
			continue
		}
		if clause == "into" && t.kind == '(' {
			inInsertList = true
			continue
		}
		if inInsertList {
			switch t.kind {
			case ')':
				inInsertList = false
			case 'i':
				c, _, err := resolve(t.text) // a plaintext column is column{}
				if err != nil {
					return nil, err
				}
				insertCols = append(insertCols, c)
				insertNames = append(insertNames, t.text)
			}
			continue
		}
		if t.kind != 'i' || i+1 < len(toks) && toks[i+1].kind == '(' {
			continue // not a column: a function's name
		}
		c, ok, err := resolve(t.text)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		prev, next := tokAt(toks, i-1), tokAt(toks, i+1)
		name := c.table + "." + c.name
		switch {
		case arithmetic[prev.text] || arithmetic[next.text]:
			return nil, fmt.Errorf("arithmetic on %s: the server cannot compute on its ciphertext", name)
		case prev.kind == '(' && isAggregate(tokAt(toks, i-2).text):
			return nil, fmt.Errorf("%s(%s): the server cannot add or order its ciphertext", strings.ToUpper(tokAt(toks, i-2).text), name)
		case clause == "order":
			return nil, fmt.Errorf("ORDER BY %s: %s ciphertexts keep no order", name, c.scheme)
		case next.text == "between" || next.text == "like" || next.text == "<" || next.text == ">" || next.text == "<=" || next.text == ">=" ||
			prev.text == "<" || prev.text == ">" || prev.text == "<=" || prev.text == ">=":
			return nil, fmt.Errorf("a range on %s: %s ciphertexts keep no order (report R4's ore scheme does, in the enc_* workloads)", name, c.scheme)
		case clause == "set" && next.text == "=":
			rhs, after := tokAt(toks, i+2), tokAt(toks, i+3)
			switch {
			case rhs.kind == '?' && (after.kind == 0 || after.kind == ',' || after.kind == 'i' && keywords[after.text]):
				bind(i+2, c)
			case rhs.kind == 'i' && rhs.text == t.text && arithmetic[after.text]:
				return nil, fmt.Errorf("arithmetic on %s: the server cannot compute on its ciphertext", name)
			default:
				return nil, fmt.Errorf("the value assigned to %s is not a :variable the client can encrypt", name)
			}
		case next.text == "=" || next.text == "<>" || next.text == "!=" || prev.text == "=" || prev.text == "<>" || prev.text == "!=":
			other, at := tokAt(toks, i+2), i+2
			if prev.text == "=" || prev.text == "<>" || prev.text == "!=" {
				other, at = tokAt(toks, i-2), i-2
			}
			if other.kind != '?' {
				return nil, fmt.Errorf("%s is compared with %q, which the client does not encrypt: compare it with a :variable", name, other.text)
			}
			if clause != "set" && c.scheme == colenc.Rnd {
				return nil, fmt.Errorf("an equality on %s never holds: rnd ciphertexts of equal values differ (det keeps equality)", name)
			}
			bind(at, c)
		case next.text == "in":
			if c.scheme == colenc.Rnd {
				return nil, fmt.Errorf("IN on %s never holds: rnd ciphertexts of equal values differ (det keeps equality)", name)
			}
			for j := i + 3; j < len(toks) && toks[j].kind != ')'; j++ {
				switch toks[j].kind {
				case '?':
					bind(j, c)
				case ',':
				default:
					return nil, fmt.Errorf("%s IN (...) lists %q, which the client does not encrypt: list :variables", name, toks[j].text)
				}
			}
		case clause == "select" || clause == "returning":
			out := c.name
			if next.text == "as" {
				out = tokAt(toks, i+2).text
			}
			enc.results[out] = c
		}
	}
	if len(insertCols) > 0 {
		if err := bindValues(toks, insertCols, insertNames, bind); err != nil {
			return nil, err
		}
	}
	for _, p := range enc.params {
		if p != nil {
			return enc, nil
		}
	}
	if len(enc.results) == 0 {
		return nil, nil
	}
	return enc, nil
}

// bindValues maps INSERT ... VALUES (...) items to the column list: an
// encrypted column's item must be one :variable.
func bindValues(toks []sqlTok, cols []column, names []string, bind func(int, column)) error {
	start := -1
	for i, t := range toks {
		if t.kind == 'i' && t.text == "values" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		for _, c := range cols {
			if c.scheme != "" {
				return fmt.Errorf("INSERT into %s.%s without VALUES: the client encrypts only values it binds", c.table, c.name)
			}
		}
		return nil
	}
	col, depth, itemStart := 0, 0, -1
	for i := start; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == '(':
			depth++
			if depth == 1 {
				col, itemStart = 0, i+1
			}
		case t.kind == ')' || t.kind == ',' && depth == 1:
			if depth == 1 && col < len(cols) && cols[col].scheme != "" {
				if i-itemStart != 1 || toks[itemStart].kind != '?' {
					return fmt.Errorf("the value of %s.%s is not a :variable the client can encrypt", cols[col].table, names[col])
				}
				bind(itemStart, cols[col])
			}
			if t.kind == ')' {
				depth--
			} else {
				col, itemStart = col+1, i+1
			}
		}
		if depth == 0 && t.kind == 'i' && keywords[t.text] && t.text != "values" {
			break
		}
	}
	return nil
}

func tokAt(toks []sqlTok, i int) sqlTok {
	if i < 0 || i >= len(toks) {
		return sqlTok{}
	}
	return toks[i]
}

func isAggregate(name string) bool {
	switch name {
	case "sum", "avg", "min", "max", "stddev", "variance", "bit_or", "bit_and":
		return true
	}
	return false
}
