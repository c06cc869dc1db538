package lang

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// source is text with the file position of each byte (an expression may
// run over continued lines).
type source struct {
	text string
	pos  []Pos
}

func (s source) at(i int) Pos {
	if i < len(s.pos) {
		return s.pos[i]
	}
	if len(s.pos) == 0 {
		return Pos{}
	}
	p := s.pos[len(s.pos)-1]
	p.Col++
	return p
}

// ParseError is bad script input: where, and what was expected.
type ParseError struct {
	File string
	At   Pos
	Msg  string
}

func (e *ParseError) Error() string { return e.File + ":" + e.At.String() + ": " + e.Msg }

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tDouble
	tVar
	tWord // a keyword or a function name
	tOp   // operators, parentheses and commas
)

type token struct {
	kind tokKind
	text string // word lowercased, operator, variable name
	i    int64
	f    float64
	at   int // byte offset in the source
}

type exprParser struct {
	src  source
	toks []token
	n    int
	syms *Symbols
	file string
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *exprParser) errAt(i int, format string, args ...any) error {
	return &ParseError{File: p.file, At: p.src.at(i), Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) lex() error {
	s := p.src.text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			i++
		case c == ':':
			j := i + 1
			if j >= len(s) || !isAlpha(s[j]) {
				return p.errAt(i, "a variable is :name, a letter or _ first")
			}
			for j < len(s) && (isAlpha(s[j]) || isDigit(s[j])) {
				j++
			}
			p.toks = append(p.toks, token{kind: tVar, text: s[i+1 : j], at: i})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			double := false
			if j < len(s) && s[j] == '.' {
				double = true
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					double = true
					for j = k; j < len(s) && isDigit(s[j]); j++ {
					}
				}
			}
			lit := s[i:j]
			t := token{at: i}
			var err error
			if double {
				t.kind = tDouble
				t.f, err = strconv.ParseFloat(lit, 64)
			} else {
				t.kind = tInt
				t.i, err = strconv.ParseInt(lit, 10, 64)
			}
			if err != nil {
				return p.errAt(i, "constant %s is out of range", lit)
			}
			p.toks = append(p.toks, t)
			i = j
		case isAlpha(c):
			j := i
			for j < len(s) && (isAlpha(s[j]) || isDigit(s[j])) {
				j++
			}
			p.toks = append(p.toks, token{kind: tWord, text: strings.ToLower(s[i:j]), at: i})
			i = j
		default:
			op := ""
			for _, o := range []string{"<=", ">=", "<>", "!=", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "=", "&", "|", "#", "~"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return p.errAt(i, "unexpected character %q in an expression", c)
			}
			p.toks = append(p.toks, token{kind: tOp, text: op, at: i})
			i += len(op)
		}
	}
	p.toks = append(p.toks, token{kind: tEOF, at: len(s)})
	return nil
}

func (p *exprParser) peek() token { return p.toks[p.n] }
func (p *exprParser) next() token {
	t := p.toks[p.n]
	if t.kind != tEOF {
		p.n++
	}
	return t
}

func (p *exprParser) isOp(t token, ops ...string) bool {
	if t.kind != tOp && t.kind != tWord {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

func (p *exprParser) expect(op string) error {
	t := p.next()
	if !p.isOp(t, op) {
		return p.errAt(t.at, "expected %q, found %s", op, describe(t))
	}
	return nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the expression"
	case tVar:
		return ":" + t.text
	case tInt, tDouble:
		return "a number"
	}
	return strconv.Quote(t.text)
}

// Binary operators by precedence (pgbench's exprparse.y, after
// PostgreSQL's grammar): OR < AND < NOT < IS < comparisons < bitwise
// < + - < * / % < unary.
var binaryPrec = map[string]int{
	"or": 1, "and": 2,
	"=": 5, "<>": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
	"|": 6, "#": 6, "&": 6, "<<": 6, ">>": 6,
	"+": 7, "-": 7, "*": 8, "/": 8, "%": 8,
}

const (
	precNot = 3
	precIs  = 4
	precCmp = 5
)

func (p *exprParser) parse(minPrec int) (*Expr, error) {
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp && t.kind != tWord {
			return left, nil
		}
		if t.kind == tWord && (t.text == "is" || t.text == "isnull" || t.text == "notnull") {
			if precIs < minPrec {
				return left, nil
			}
			if left, err = p.isTest(left); err != nil {
				return nil, err
			}
			if n := p.peek(); n.kind == tWord && (n.text == "is" || n.text == "isnull" || n.text == "notnull") {
				return nil, p.errAt(n.at, "IS tests do not chain: put parentheses around one")
			}
			continue
		}
		prec, ok := binaryPrec[t.text]
		if !ok || prec < minPrec {
			return left, nil
		}
		p.next()
		right, err := p.parse(prec + 1)
		if err != nil {
			return nil, err
		}
		left = binary(t, left, right, p.src.at(t.at))
		if prec == precCmp {
			if n := p.peek(); n.kind == tOp && binaryPrec[n.text] == precCmp {
				return nil, p.errAt(n.at, "comparisons do not chain: put parentheses around one")
			}
		}
	}
}

func binary(t token, l, r *Expr, at Pos) *Expr {
	x := &Expr{args: []*Expr{l, r}, at: at}
	switch t.text {
	case "or":
		x.op = opOr
	case "and":
		x.op = opAnd
	case "+", "-", "*", "/", "%":
		x.op, x.sub = opArith, t.text[0]
	case "=":
		x.op, x.sub = opCmp, '='
	case "<>", "!=":
		x.op, x.sub = opCmp, '!'
	case "<":
		x.op, x.sub = opCmp, '<'
	case "<=":
		x.op, x.sub = opCmp, 'l'
	case ">": // a > b is b < a
		x.op, x.sub, x.args = opCmp, '<', []*Expr{r, l}
	case ">=":
		x.op, x.sub, x.args = opCmp, 'l', []*Expr{r, l}
	case "&", "|", "#":
		x.op, x.sub = opBit, t.text[0]
	case "<<":
		x.op, x.sub = opBit, '<'
	case ">>":
		x.op, x.sub = opBit, '>'
	}
	return x
}

func (p *exprParser) isTest(left *Expr) (*Expr, error) {
	t := p.next()
	at := p.src.at(t.at)
	is := func(v Value) *Expr {
		return &Expr{op: opIs, args: []*Expr{left, {op: opConst, val: v, at: at}}, at: at}
	}
	not := func(x *Expr) *Expr { return &Expr{op: opNot, args: []*Expr{x}, at: at} }
	switch t.text {
	case "isnull":
		return is(NullValue()), nil
	case "notnull":
		return not(is(NullValue())), nil
	}
	negate := false
	w := p.next()
	if w.kind == tWord && w.text == "not" {
		negate = true
		w = p.next()
	}
	var x *Expr
	switch {
	case w.kind == tWord && w.text == "null":
		x = is(NullValue())
	case w.kind == tWord && w.text == "true":
		x = is(BoolValue(true))
	case w.kind == tWord && w.text == "false":
		x = is(BoolValue(false))
	default:
		return nil, p.errAt(w.at, "expected NULL, TRUE or FALSE after IS, found %s", describe(w))
	}
	if negate {
		x = not(x)
	}
	return x, nil
}

func (p *exprParser) prefix() (*Expr, error) {
	t := p.next()
	at := p.src.at(t.at)
	switch t.kind {
	case tInt:
		return &Expr{op: opConst, val: IntValue(t.i), at: at}, nil
	case tDouble:
		return &Expr{op: opConst, val: DoubleValue(t.f), at: at}, nil
	case tVar:
		return &Expr{op: opVar, slot: p.syms.Slot(t.text), at: at}, nil
	case tEOF:
		return nil, p.errAt(t.at, "expected an expression, found the end of the line")
	case tOp:
		switch t.text {
		case "(":
			x, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			return x, p.expect(")")
		case "+":
			return p.parse(9)
		case "-": // -x is 0 - x, as pgbench has it
			x, err := p.parse(9)
			if err != nil {
				return nil, err
			}
			return &Expr{op: opArith, sub: '-', args: []*Expr{{op: opConst, val: IntValue(0), at: at}, x}, at: at}, nil
		case "~": // ~x is x # ~0
			x, err := p.parse(9)
			if err != nil {
				return nil, err
			}
			return &Expr{op: opBit, sub: '#', args: []*Expr{{op: opConst, val: IntValue(-1), at: at}, x}, at: at}, nil
		}
		return nil, p.errAt(t.at, "expected an expression, found %s", describe(t))
	}
	switch t.text {
	case "null":
		return &Expr{op: opConst, val: NullValue(), at: at}, nil
	case "true", "false":
		return &Expr{op: opConst, val: BoolValue(t.text == "true"), at: at}, nil
	case "not":
		x, err := p.parse(precNot)
		if err != nil {
			return nil, err
		}
		return &Expr{op: opNot, args: []*Expr{x}, at: at}, nil
	case "case":
		return p.caseExpr(at)
	}
	return p.call(t, at)
}

func (p *exprParser) caseExpr(at Pos) (*Expr, error) {
	x := &Expr{op: opCase, at: at}
	for {
		w := p.next()
		switch {
		case w.kind == tWord && w.text == "when":
			cond, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			if t := p.next(); !(t.kind == tWord && t.text == "then") {
				return nil, p.errAt(t.at, "expected THEN, found %s", describe(t))
			}
			val, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			x.args = append(x.args, cond, val)
		case len(x.args) == 0:
			return nil, p.errAt(w.at, "expected WHEN after CASE, found %s", describe(w))
		case w.kind == tWord && w.text == "else":
			val, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			x.args = append(x.args, val)
			if t := p.next(); !(t.kind == tWord && t.text == "end") {
				return nil, p.errAt(t.at, "expected END, found %s", describe(t))
			}
			return x, nil
		case w.kind == tWord && w.text == "end":
			x.args = append(x.args, &Expr{op: opConst, val: NullValue(), at: p.src.at(w.at)})
			return x, nil
		default:
			return nil, p.errAt(w.at, "expected WHEN, ELSE or END, found %s", describe(w))
		}
	}
}

func (p *exprParser) call(name token, at Pos) (*Expr, error) {
	def, ok := functions[name.text]
	if !ok {
		return nil, p.errAt(name.at, "unknown function %q (pgbench's are %s)", name.text, functionNames())
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	x := &Expr{op: opFunc, sub: def.code, at: at, fname: name.text}
	if !p.isOp(p.peek(), ")") {
		for {
			a, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			x.args = append(x.args, a)
			if !p.isOp(p.peek(), ",") {
				break
			}
			p.next()
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	n := len(x.args)
	if n < def.min || def.max >= 0 && n > def.max {
		want := strconv.Itoa(def.min)
		switch {
		case def.max < 0:
			want = "at least " + want
		case def.max != def.min:
			want += " or " + strconv.Itoa(def.max)
		}
		return nil, p.errAt(name.at, "%s takes %s arguments, not %d", name.text, want, n)
	}
	// The hashes' and permute's seed defaults to :default_seed.
	if (def.code == fHashMurmur2 || def.code == fHashFNV1a) && n == 1 || def.code == fPermute && n == 2 {
		x.args = append(x.args, &Expr{op: opVar, slot: p.syms.Slot("default_seed"), at: at})
	}
	return x, nil
}

func functionNames() string {
	return strings.Join(slices.Sorted(maps.Keys(functions)), ", ")
}

// ParseExpr parses one expression of src; syms numbers its variables.
func parseExpr(file string, src source, syms *Symbols) (*Expr, error) {
	p := &exprParser{src: src, syms: syms, file: file}
	if err := p.lex(); err != nil {
		return nil, err
	}
	x, err := p.parse(1)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t.at, "unexpected %s after the expression", describe(t))
	}
	return x, nil
}
