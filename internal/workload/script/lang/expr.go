package lang

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Pos is a place in a script file, both 1-based.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// Symbols numbers a script set's variables, so that a worker keeps them
// in a slice and a command names them by index.
type Symbols struct {
	names []string
	index map[string]int
}

// Slot is the variable's index, added when new.
func (s *Symbols) Slot(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// Lookup is the slot of a variable the scripts name, or false.
func (s *Symbols) Lookup(name string) (int, bool) {
	i, ok := s.index[name]
	return i, ok
}

// Name is the variable of a slot.
func (s *Symbols) Name(slot int) string { return s.names[slot] }

// Len is the number of variables.
func (s *Symbols) Len() int { return len(s.names) }

type opcode uint8

const (
	opConst opcode = iota
	opVar
	opArith // + - * / % in arith
	opCmp   // = <> < <=
	opBit   // & | # << >>
	opAnd
	opOr
	opNot
	opIs
	opCase
	opFunc
)

// Expr is a parsed expression.
type Expr struct {
	op    opcode
	sub   byte // the arithmetic, comparison or bitwise operator; the function
	val   Value
	slot  int
	args  []*Expr
	at    Pos
	fname string
}

// Env is what an expression reads: the variables by slot and the
// worker's generator; debug() writes to Debug.
type Env struct {
	Vars  []Value
	Rand  *PRNG
	Debug io.Writer
	// Names gives variable names for errors.
	Names *Symbols
}

// function table: name, argument counts (min, max; -1: any), code.
type funcDef struct {
	min, max int
	code     byte
}

const (
	fAbs byte = iota + 1
	fDebug
	fDouble
	fExp
	fGreatest
	fLeast
	fHashMurmur2
	fHashFNV1a
	fInt
	fLn
	fMod
	fPermute
	fPi
	fPow
	fRandom
	fRandomExponential
	fRandomGaussian
	fRandomZipfian
	fSqrt
)

var functions = map[string]funcDef{
	"abs": {1, 1, fAbs}, "debug": {1, 1, fDebug}, "double": {1, 1, fDouble}, "exp": {1, 1, fExp},
	"greatest": {1, -1, fGreatest}, "least": {1, -1, fLeast},
	"hash": {1, 2, fHashMurmur2}, "hash_murmur2": {1, 2, fHashMurmur2}, "hash_fnv1a": {1, 2, fHashFNV1a},
	"int": {1, 1, fInt}, "ln": {1, 1, fLn}, "mod": {2, 2, fMod}, "permute": {2, 3, fPermute}, "pi": {0, 0, fPi},
	"pow": {2, 2, fPow}, "power": {2, 2, fPow}, "random": {2, 2, fRandom},
	"random_exponential": {3, 3, fRandomExponential}, "random_gaussian": {3, 3, fRandomGaussian},
	"random_zipfian": {3, 3, fRandomZipfian}, "sqrt": {1, 1, fSqrt},
}

// Eval computes the expression.
func (x *Expr) Eval(e *Env) (Value, error) {
	switch x.op {
	case opConst:
		return x.val, nil
	case opVar:
		v := e.Vars[x.slot]
		if v.Kind == Unset {
			return v, &EvalError{At: x.at, Err: fmt.Errorf("undefined variable :%s", e.Names.Name(x.slot))}
		}
		r, err := v.resolve()
		if err != nil {
			return r, &EvalError{At: x.at, Err: fmt.Errorf("variable :%s: %w", e.Names.Name(x.slot), err)}
		}
		return r, nil
	case opAnd, opOr:
		a, err := x.args[0].Eval(e)
		if err != nil || a.Kind == Null {
			return a, err
		}
		ba, err := toBool(a)
		if err != nil {
			return a, x.fail(err)
		}
		if ba == (x.op == opOr) {
			return BoolValue(ba), nil
		}
		b, err := x.args[1].Eval(e)
		if err != nil || b.Kind == Null {
			return b, err
		}
		bb, err := toBool(b)
		return BoolValue(bb), x.fail(err)
	case opCase:
		for i := 0; i+1 < len(x.args); i += 2 {
			c, err := x.args[i].Eval(e)
			if err != nil {
				return c, err
			}
			if truth(c) {
				return x.args[i+1].Eval(e)
			}
		}
		return x.args[len(x.args)-1].Eval(e)
	}
	// Strict operators: every argument first, and NULL in gives NULL out
	// (but for IS and debug()).
	var buf [4]Value
	vals := buf[:0]
	hasNull := false
	for _, a := range x.args {
		v, err := a.Eval(e)
		if err != nil {
			return v, err
		}
		hasNull = hasNull || v.Kind == Null
		vals = append(vals, v)
	}
	if hasNull && x.op != opIs && !(x.op == opFunc && x.sub == fDebug) {
		return NullValue(), nil
	}
	v, err := x.apply(vals, e)
	return v, x.fail(err)
}

// EvalError is an expression that failed at run time, with where.
type EvalError struct {
	At  Pos
	Err error
}

func (e *EvalError) Error() string { return e.At.String() + ": " + e.Err.Error() }
func (e *EvalError) Unwrap() error { return e.Err }

func (x *Expr) fail(err error) error {
	if err == nil {
		return nil
	}
	var already *EvalError
	if errors.As(err, &already) {
		return err
	}
	return &EvalError{At: x.at, Err: err}
}

func (x *Expr) apply(v []Value, e *Env) (Value, error) {
	switch x.op {
	case opNot:
		b, err := toBool(v[0])
		return BoolValue(!b), err
	case opIs:
		return BoolValue(v[0].Kind == v[1].Kind && (v[0].Kind != Bool || v[0].B == v[1].B)), nil
	case opArith, opCmp:
		if (v[0].Kind == Double || v[1].Kind == Double) && x.sub != '%' {
			a, b, err := two(v, toDouble)
			if err != nil {
				return a2(err)
			}
			return doubleOp(x.sub, a, b), nil
		}
		a, b, err := two(v, toInt)
		if err != nil {
			return a2(err)
		}
		if x.op == opCmp {
			return BoolValue(cmpInt(x.sub, a, b)), nil
		}
		r, err := checkedArith(x.sub, a, b)
		return IntValue(r), err
	case opBit:
		a, b, err := two(v, toInt)
		if err != nil {
			return a2(err)
		}
		switch x.sub {
		case '&':
			return IntValue(a & b), nil
		case '|':
			return IntValue(a | b), nil
		case '#':
			return IntValue(a ^ b), nil
		case '<':
			return IntValue(a << uint64(b&63)), nil
		default:
			return IntValue(a >> uint64(b&63)), nil
		}
	case opFunc:
		return callFunc(x.sub, v, e)
	}
	return Value{}, fmt.Errorf("unknown operator")
}

func a2(err error) (Value, error) { return Value{}, err }

func doubleOp(op byte, a, b float64) Value {
	switch op {
	case '+':
		return DoubleValue(a + b)
	case '-':
		return DoubleValue(a - b)
	case '*':
		return DoubleValue(a * b)
	case '/':
		return DoubleValue(a / b)
	case '=':
		return BoolValue(a == b)
	case '!':
		return BoolValue(a != b)
	case '<':
		return BoolValue(a < b)
	default: // 'l': <=
		return BoolValue(a <= b)
	}
}

func cmpInt(op byte, a, b int64) bool {
	switch op {
	case '=':
		return a == b
	case '!':
		return a != b
	case '<':
		return a < b
	default:
		return a <= b
	}
}

func callFunc(f byte, v []Value, e *Env) (Value, error) {
	switch f {
	case fPi:
		return DoubleValue(math.Pi), nil
	case fAbs:
		if v[0].Kind == Int {
			if v[0].I < 0 {
				return IntValue(-v[0].I), nil
			}
			return v[0], nil
		}
		d, err := toDouble(v[0])
		return DoubleValue(math.Abs(d)), err
	case fDebug:
		if e.Debug != nil {
			fmt.Fprintf(e.Debug, "debug: %s %s\n", v[0].Kind, v[0])
		}
		return v[0], nil
	case fDouble, fSqrt, fLn, fExp:
		d, err := toDouble(v[0])
		switch f {
		case fSqrt:
			d = math.Sqrt(d)
		case fLn:
			d = math.Log(d)
		case fExp:
			d = math.Exp(d)
		}
		return DoubleValue(d), err
	case fInt:
		i, err := toInt(v[0])
		return IntValue(i), err
	case fPow:
		a, b, err := two(v, toDouble)
		return DoubleValue(math.Pow(a, b)), err
	case fMod:
		a, b, err := two(v, toInt)
		if err != nil {
			return a2(err)
		}
		r, err := checkedArith('%', a, b)
		return IntValue(r), err
	case fLeast, fGreatest:
		return extremum(f == fLeast, v)
	case fHashMurmur2, fHashFNV1a:
		a, s, err := two(v, toInt)
		if err != nil {
			return a2(err)
		}
		if f == fHashMurmur2 {
			return IntValue(hashMurmur2(a, s)), nil
		}
		return IntValue(hashFNV1a(a, s)), nil
	case fPermute:
		var a [3]int64
		for i := range a {
			var err error
			if a[i], err = toInt(v[i]); err != nil {
				return a2(err)
			}
		}
		if a[1] <= 0 {
			return a2(fmt.Errorf("permute size parameter must be greater than zero"))
		}
		return IntValue(permute(a[0], a[1], a[2])), nil
	}
	return randomFunc(f, v, e)
}

func extremum(least bool, v []Value) (Value, error) {
	for _, x := range v {
		if x.Kind == Double {
			best, err := pick(least, v, toDouble)
			return DoubleValue(best), err
		}
	}
	best, err := pick(least, v, toInt)
	return IntValue(best), err
}

// pick is the least or greatest of v, each converted by conv.
func pick[T int64 | float64](least bool, v []Value, conv func(Value) (T, error)) (T, error) {
	best, err := conv(v[0])
	if err != nil {
		return best, err
	}
	for _, x := range v[1:] {
		n, err := conv(x)
		if err != nil {
			return best, err
		}
		if least && n < best || !least && n > best {
			best = n
		}
	}
	return best, nil
}

// two converts a binary operator's or function's two arguments.
func two[T int64 | float64](v []Value, conv func(Value) (T, error)) (a, b T, err error) {
	if a, err = conv(v[0]); err == nil {
		b, err = conv(v[1])
	}
	return a, b, err
}

func randomFunc(f byte, v []Value, e *Env) (Value, error) {
	lb, ub, err := two(v, toInt)
	if err != nil {
		return a2(err)
	}
	if err := randomRange(lb, ub); err != nil {
		return a2(err)
	}
	if f == fRandom {
		return IntValue(uniform(e.Rand, lb, ub)), nil
	}
	param, err := toDouble(v[2])
	if err != nil {
		return a2(err)
	}
	switch f {
	case fRandomGaussian:
		if param < minGaussian {
			return a2(fmt.Errorf("gaussian parameter must be at least %f (not %f)", minGaussian, param))
		}
		return IntValue(gaussian(e.Rand, lb, ub, param)), nil
	case fRandomZipfian:
		if param < minZipfian || param > maxZipfian {
			return a2(fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfian, maxZipfian, param))
		}
		return IntValue(zipfian(e.Rand, lb, ub, param)), nil
	default:
		if param <= 0 {
			return a2(fmt.Errorf("exponential parameter must be greater than zero (not %f)", param))
		}
		return IntValue(exponential(e.Rand, lb, ub, param)), nil
	}
}

// Vars lists the slots an expression reads, with where.
func (x *Expr) Vars(out []VarUse) []VarUse {
	if x.op == opVar {
		out = append(out, VarUse{Slot: x.slot, At: x.at})
	}
	for _, a := range x.args {
		out = a.Vars(out)
	}
	return out
}

// VarUse is one place a variable is read.
type VarUse struct {
	Slot int
	At   Pos
}
