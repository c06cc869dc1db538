package lang

import (
	"errors"
	"testing"
)

// FuzzParse: any input parses or fails with a ParseError naming a place
// in it, and a parsed \set evaluates without panicking.
func FuzzParse(f *testing.F) {
	for _, name := range Builtins() {
		text, _ := Builtin(name, true)
		f.Add(text)
	}
	f.Add("\\set x CASE WHEN :a > 1 THEN permute(:a, 10) ELSE hash_fnv1a(:a) END\n\\if :x\nSELECT :x \\gset\n\\endif\n")
	f.Add("SELECT $$a$$, 'b''c', \"d\", E'\\'' \\; SELECT 1 \\aset p\n\\sleep :x ms\n")
	f.Fuzz(func(t *testing.T, text string) {
		var syms Symbols
		s, err := Parse("f.sql", text, &syms)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.At.Line < 1 || pe.At.Col < 1 {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		vars := make([]Value, syms.Len())
		for i := range vars {
			vars[i] = IntValue(int64(i) - 1)
		}
		var p PRNG
		p.Seed(1)
		env := &Env{Vars: vars, Rand: &p, Names: &syms}
		for _, c := range s.Commands {
			if c.Expr != nil && c.Kind == CmdSet {
				_, _ = c.Expr.Eval(env)
			}
		}
	})
}
