package colenc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is a plaintext's type; it is encrypted with the value, so a value
// decrypts only as what it was.
type Kind byte

const (
	KindInt     Kind = 'i'
	KindDecimal Kind = 'd'
	KindDate    Kind = 't'
	KindText    Kind = 's'
	KindTime    Kind = 'T'
)

// Value is a typed plaintext: integers, fixed-point decimals (I scaled by
// 10^Scale), dates (days since 1970-01-01), timestamps (microseconds since
// 1970-01-01 UTC) and text.
type Value struct {
	Kind  Kind
	I     int64
	Scale uint8
	S     string
}

func Int(v int64) Value                      { return Value{Kind: KindInt, I: v} }
func Text(s string) Value                    { return Value{Kind: KindText, S: s} }
func Decimal(units int64, scale uint8) Value { return Value{Kind: KindDecimal, I: units, Scale: scale} }

// Date keeps the calendar day of t (UTC).
func Date(t time.Time) Value {
	y, m, d := t.UTC().Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return Value{Kind: KindDate, I: day.Unix() / 86400}
}

// Timestamp keeps t to the microsecond, as SQL timestamps do.
func Timestamp(t time.Time) Value { return Value{Kind: KindTime, I: t.UnixMicro()} }

// ParseDecimal reads "12.34" at the given scale (exactly; more digits are an error).
func ParseDecimal(s string, scale uint8) (Value, error) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if len(frac) > int(scale) {
		return Value{}, fmt.Errorf("decimal %q has more than %d fraction digits", s, scale)
	}
	frac += strings.Repeat("0", int(scale)-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return Value{}, fmt.Errorf("decimal %q: %w", s, err)
	}
	if neg {
		n = -n
	}
	return Decimal(n, scale), nil
}

// String renders the value as SQL would show it.
func (v Value) String() string {
	switch v.Kind {
	case KindInt:
		return strconv.FormatInt(v.I, 10)
	case KindDecimal:
		if v.Scale == 0 {
			return strconv.FormatInt(v.I, 10)
		}
		sign, n := "", v.I
		if n < 0 {
			sign, n = "-", -n
		}
		p := int64(math.Pow10(int(v.Scale)))
		return fmt.Sprintf("%s%d.%0*d", sign, n/p, int(v.Scale), n%p)
	case KindDate:
		return time.Unix(v.I*86400, 0).UTC().Format("2006-01-02")
	case KindTime:
		return time.UnixMicro(v.I).UTC().Format("2006-01-02 15:04:05.000000")
	case KindText:
		return v.S
	}
	return ""
}

// encodedLen is the length appendEncoded will add, or why v cannot be
// encoded.
func (v Value) encodedLen() (int, error) {
	switch v.Kind {
	case KindInt, KindDate, KindTime:
		return 9, nil
	case KindDecimal:
		return 10, nil
	case KindText:
		if !utf8.ValidString(v.S) {
			return 0, fmt.Errorf("text is not valid UTF-8")
		}
		return 1 + len(v.S), nil
	}
	return 0, fmt.Errorf("unknown value kind %q", v.Kind)
}

// appendEncoded appends [kind][payload]: big-endian integers, a scale
// byte for decimals, UTF-8 for text. encodedLen has checked v.
func (v Value) appendEncoded(buf []byte) []byte {
	buf = append(buf, byte(v.Kind))
	switch v.Kind {
	case KindInt, KindDate, KindTime:
		return binary.BigEndian.AppendUint64(buf, uint64(v.I))
	case KindDecimal:
		buf = append(buf, v.Scale)
		return binary.BigEndian.AppendUint64(buf, uint64(v.I))
	}
	return append(buf, v.S...)
}

func decode(b []byte) (Value, error) {
	if len(b) == 0 {
		return Value{}, fmt.Errorf("empty plaintext")
	}
	v := Value{Kind: Kind(b[0])}
	p := b[1:]
	switch v.Kind {
	case KindInt, KindDate, KindTime:
		if len(p) != 8 {
			return Value{}, fmt.Errorf("bad %c payload length %d", v.Kind, len(p))
		}
		v.I = int64(binary.BigEndian.Uint64(p))
	case KindDecimal:
		if len(p) != 9 {
			return Value{}, fmt.Errorf("bad decimal payload length %d", len(p))
		}
		v.Scale, v.I = p[0], int64(binary.BigEndian.Uint64(p[1:]))
	case KindText:
		v.S = string(p)
	default:
		return Value{}, fmt.Errorf("unknown value kind %q", b[0])
	}
	return v, nil
}
