package lang

import (
	"errors"
	"strings"
	"testing"
)

func eval(t *testing.T, expr string) (Value, error) {
	t.Helper()
	var syms Symbols
	s, err := Parse("t.sql", `\set r `+expr+"\n", &syms)
	if err != nil {
		return Value{}, err
	}
	vars := make([]Value, syms.Len())
	if i, ok := syms.Lookup("default_seed"); ok {
		vars[i] = IntValue(5432)
	}
	var p PRNG
	p.Seed(1)
	return s.Commands[0].Expr.Eval(&Env{Vars: vars, Rand: &p, Names: &syms})
}

// The examples of pgbench 15's manual (tables 290 and 291), one by one.
func TestManualExamples(t *testing.T) {
	for expr, want := range map[string]string{
		"true or 0 = 1": "true", "true and false": "false", "not false": "true",
		"1 is null": "false", "1 notnull": "true", "null isnull": "true", "true is not false": "true",
		"5 = 4": "false", "5 <> 4": "true", "5 != 5": "false", "5 < 4": "false", "5 <= 4": "false",
		"5 > 4": "true", "5 >= 4": "true",
		"1 | 2": "3", "1 # 3": "2", "1 & 3": "1", "~ 1": "-2", "1 << 2": "4", "8 >> 2": "2",
		"5 + 4": "9", "3 - 2.0": "1", "5 * 4": "20", "5 / 3": "1", "3 % 2": "1", "- 2.0": "-2",
		"abs(-17)": "17", "double(5432)": "5432", "greatest(5, 4, 3, 2)": "5", "least(5, 4, 3, 2.1)": "2.1",
		"int(5.4 + 3.8)": "9", "mod(54, 32)": "22", "pow(2.0, 10)": "1024", "power(2, 10)": "1024",
		"sqrt(2.0)": "1.4142135623731", "exp(1.0)": "2.71828182845905", "ln(2.718281828459045)": "1",
		"hash(10, 5432)": "-5817877081768721676", "hash_murmur2(10, 5432)": "-5817877081768721676",
		"hash_fnv1a(10, 5432)": "-7793829335365542153", "hash(10)": "-5817877081768721676",
		"pi()": "3.14159265358979",
		"CASE WHEN 1 <> 0 THEN 7/1 ELSE NULL END": "7", "CASE WHEN 0 THEN 1 END": "NULL",
		// Checked against pgbench 15's debug() on this machine.
		"permute(0, 10, 5432)": "6", "permute(7, 1000, 42)": "440", "permute(123456, 1000000, -1)": "283222",
		"permute(3, 3, 0)": "2", "hash_fnv1a(-1, 0)": "-8289690350564177859", "int(2.5)": "2", "int(3.5)": "4",
		"1.0 / 3": "0.333333333333333", "greatest(1, 2.5)": "2.5", "7 % -3": "1",
		"1 + 2 * 3": "7", "(1 + 2) * 3": "9", "2 - 3 - 4": "-5", "1 + null": "NULL", "not 1 = 2": "true",
	} {
		v, err := eval(t, expr)
		if err != nil || v.String() != want {
			t.Errorf("%s = %s (%v), want %s", expr, v, err, want)
		}
	}
}

// Errors the manual names: overflow, division by zero, bad parameters.
func TestEvaluationErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"9223372036854775807 + 1": "bigint add out of range", "1 / 0": "division by zero", "1 % 0": "division by zero",
		"(-9223372036854775807 - 1) / -1": "bigint div out of range", "4611686018427387904 * 2": "bigint mul out of range",
		"random(2, 1)": "empty range", "random_gaussian(1, 10, 1.5)": "gaussian parameter",
		"random_zipfian(1, 10, 1.0)": "zipfian parameter", "random_exponential(1, 10, 0)": "exponential parameter",
		"permute(1, 0)": "size parameter", "true + 1": "cannot coerce boolean", "1 and true": "cannot coerce int",
		// pgbench 15 refuses it too, though its manual's example says TRUE.
		"5 or 0": "cannot coerce int to boolean",
		"random(-9223372036854775807 - 1, 9223372036854775807)": "too large",
	} {
		if _, err := eval(t, expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", expr, err, want)
		}
	}
}

// random() and its distributions stay within their bounds; permute is a
// bijection of [0, size) for any seed.
func TestRandomBoundsAndPermutations(t *testing.T) {
	var p PRNG
	p.Seed(7)
	for i := 0; i < 20000; i++ {
		for _, v := range []int64{uniform(&p, -3, 3), gaussian(&p, -3, 3, 2.5), exponential(&p, -3, 3, 3), zipfian(&p, -3, 3, 1.5)} {
			if v < -3 || v > 3 {
				t.Fatalf("a draw %d outside [-3, 3]", v)
			}
		}
	}
	for _, size := range []int64{1, 2, 3, 7, 64, 1000} {
		for _, seed := range []int64{0, 5432, -1} {
			seen := map[int64]bool{}
			for i := int64(0); i < size; i++ {
				v := permute(i, size, seed)
				if v < 0 || v >= size || seen[v] {
					t.Fatalf("permute(%d, %d, %d) = %d: not a permutation", i, size, seed, v)
				}
				seen[v] = true
			}
		}
	}
	if permute(size1000(), 1000, 5432) != permute(size1000()-1000, 1000, 5432) {
		t.Error("permute does not take its input modulo the size")
	}
}

func size1000() int64 { return 1003 }

// A script error names file:line:column and what was expected.
func TestParseErrorsNameTheirPlace(t *testing.T) {
	for text, want := range map[string]string{
		"\\set x 1 +\n":                          "t.sql:1:11: expected an expression",
		"SELECT 1;\n\\set x random(1)\n":         "t.sql:2:8: random takes 2 arguments, not 1",
		"\\set x foo(1)\n":                       `t.sql:1:8: unknown function "foo"`,
		"\\if 1\nSELECT 1;\n":                    `t.sql:1:1: \if without a matching \endif`,
		"\\else\n":                               `t.sql:1:1: \else without a matching \if`,
		"\\if 1\n\\else\n\\elif 2\n\\endif\n":    `t.sql:3:1: \elif after \else`,
		"SELECT 'abc;\n":                         "t.sql:1:8: unterminated string",
		"\\gset\n":                               `t.sql:1:1: \gset ends an SQL command`,
		"\\shell ls\n":                           `t.sql:1:1: \shell is not supported`,
		"\\foo\n":                                `t.sql:1:1: invalid command \foo`,
		"SELECT 1 < 2 < 3;\n\\set a 1 < 2 < 3\n": "t.sql:2:14: comparisons do not chain",
		"SELECT data ? 'k' FROM t;\n":            "t.sql:1:13: a ? outside quotes",
		"\\sleep 1 h\n":                          `t.sql:1:10: \sleep's unit is us, ms or s`,
		"\\set 1x 2\n":                           `t.sql:1:6: invalid variable name "1x"`,
		"\\set x 1 +\\\n  * 2\n":                 "t.sql:2:3: expected an expression",
	} {
		_, err := Parse("t.sql", text, &Symbols{})
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s...", text, err, want)
		}
	}
}

// SQL commands: variables become placeholders outside quotes, casts and
// comments; \gset and \aset end a command; \; joins statements.
func TestSQLCommands(t *testing.T) {
	var syms Symbols
	s, err := Parse("t.sql", `-- a comment
UPDATE t SET v = v + :delta, s = 'a :b; c', w = :w::int
  WHERE id = :id; -- trailing
SELECT a AS x, b FROM t WHERE id = :id \gset p_
SELECT 1 \; SELECT 2 AS two \aset
SELECT $$:x;$$, E'\';' \gset
\set n :p_x + 1
`, &syms)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Commands) != 5 {
		t.Fatalf("%d commands, want 5", len(s.Commands))
	}
	q := s.Commands[0].Queries[0]
	if q.SQL != "UPDATE t SET v = v + ?, s = 'a :b; c', w = ?::int\n  WHERE id = ?" || len(q.Params) != 3 || q.Kind != Write || q.At != (Pos{2, 1}) {
		t.Errorf("first statement: %+v", q)
	}
	if c := s.Commands[1]; !c.Gset || c.Aset || c.Prefix != "p_" || c.Queries[0].Kind != Read {
		t.Errorf("\\gset p_: %+v", c)
	}
	if c := s.Commands[2]; !c.Aset || len(c.Queries) != 2 {
		t.Errorf("\\aset over \\;: %+v", c)
	}
	if c := s.Commands[3]; len(c.Queries[0].Params) != 0 {
		t.Errorf("variables inside quotes: %+v", c)
	}
}

// \if chains: a false condition goes to the next branch, a branch that
// ran goes past \endif.
func TestIfJumps(t *testing.T) {
	s, err := Parse("t.sql", "\\if :a\nSELECT 1;\n\\elif :b\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\nSELECT 4;\n", &Symbols{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Commands
	if c[0].Next != 2 || c[2].Next != 4 || c[2].End != 6 || c[4].End != 6 || c[6].Kind != CmdEndif {
		t.Errorf("jumps: if->%d elif->%d (end %d) else end %d", c[0].Next, c[2].Next, c[2].End, c[4].End)
	}
}

func TestBuiltinsParse(t *testing.T) {
	for _, name := range Builtins() {
		for _, pg := range []bool{true, false} {
			text, _ := Builtin(name, pg)
			if _, err := Parse(name, text, &Symbols{}); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if !pg && strings.Contains(text, "END;") {
				t.Errorf("%s for MySQL still ends with END", name)
			}
		}
	}
}
