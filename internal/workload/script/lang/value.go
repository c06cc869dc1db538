// Package lang is pgbench's script language as pgbench 15 documents it
// (the pgbench manual, "Custom Scripts", "Built-in Operators", "Built-In
// Functions"): SQL commands with :variables, \set and its expressions,
// \sleep, \if/\elif/\else/\endif, \gset and \aset. It parses a script
// into commands a worker runs; it knows no server and no driver.
package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is a value's type.
type Kind uint8

const (
	// Unset is a variable no command has set yet.
	Unset Kind = iota
	Null
	Bool
	Int
	Double
	// Text is a value a query returned (\gset, \aset) or --define gave:
	// kept as text for the SQL it is bound to, read as a number or a
	// boolean where an expression uses it (pgbench's makeVariableValue).
	Text
)

func (k Kind) String() string {
	return [...]string{"unset", "null", "boolean", "int", "double", "text"}[k]
}

// Value is one value of the language. It is a plain struct so that
// expressions evaluate without allocating.
type Value struct {
	Kind Kind
	B    bool
	I    int64
	F    float64
	// S is a Text value's bytes.
	S []byte
}

// IntValue, DoubleValue, BoolValue and NullValue make values.
func IntValue(i int64) Value      { return Value{Kind: Int, I: i} }
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }
func NullValue() Value            { return Value{Kind: Null} }

// String is the value as pgbench writes it into SQL and into debug():
// integers in decimal, doubles with 15 significant digits (%.15g),
// booleans as true and false.
func (v Value) String() string {
	return string(v.Append(nil))
}

// Append appends the value's text form to b.
func (v Value) Append(b []byte) []byte {
	switch v.Kind {
	case Int:
		return strconv.AppendInt(b, v.I, 10)
	case Double:
		return strconv.AppendFloat(b, v.F, 'g', 15, 64)
	case Bool:
		if v.B {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Text:
		return append(b, v.S...)
	case Null:
		return append(b, "NULL"...)
	}
	return b
}

// resolve turns a Text value into what pgbench reads it as: null, a
// boolean (true, yes, on and their prefixes; false, no, off, of), an
// integer, or a double; anything else is malformed.
func (v Value) resolve() (Value, error) {
	if v.Kind != Text {
		return v, nil
	}
	s := string(v.S) // small, and only when an expression reads a \gset value
	if s == "" {
		return v, fmt.Errorf("empty value")
	}
	low := strings.ToLower(s)
	switch {
	case low == "null":
		return NullValue(), nil
	case strings.HasPrefix("true", low) || strings.HasPrefix("yes", low) || low == "on":
		return BoolValue(true), nil
	case strings.HasPrefix("false", low) || strings.HasPrefix("no", low) || low == "off" || low == "of":
		return BoolValue(false), nil
	}
	if looksInt(s) {
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return v, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return IntValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) && !strings.Contains(low, "inf") {
		return v, fmt.Errorf("malformed value %q", s)
	}
	return DoubleValue(f), nil
}

// looksInt is pgbench's is_an_int: optional spaces and sign, digits only.
func looksInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// truth is a value in \if and CASE: non-zero numbers and true are true,
// zero, false and NULL false.
func truth(v Value) bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

func toInt(v Value) (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		r := math.RoundToEven(v.F)
		if math.IsNaN(r) || r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %g", v.F)
		}
		return int64(r), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.Kind)
}

func toDouble(v Value) (float64, error) {
	switch v.Kind {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.Kind)
}

func toBool(v Value) (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.Kind)
}

// Truth is a value as \if reads it.
func Truth(v Value) bool { return truth(v) }

// AsInt is a value as an integer (a double rounded, as pgbench's int()).
func AsInt(v Value) (int64, error) {
	r, err := v.resolve()
	if err != nil {
		return 0, err
	}
	return toInt(r)
}
