package mysql

import (
	"encoding/binary"
	"math"
	"strconv"
)

// Column types of the binary protocol whose values have a fixed size or a
// date layout; every other type is a length-encoded string.
const (
	typeTiny      = 1
	typeShort     = 2
	typeLong      = 3
	typeFloat     = 4
	typeDouble    = 5
	typeNull      = 6
	typeTimestamp = 7
	typeLonglong  = 8
	typeInt24     = 9
	typeDate      = 10
	typeTime      = 11
	typeDatetime  = 12
	typeYear      = 13
	typeNewdate   = 14
	typeString    = 254
)

// rowDecoder turns binary-protocol rows into text values, the form every
// caller of engine.Stmt.Query reads; numbers and dates are formatted into
// buffers reused from row to row.
type rowDecoder struct {
	out [][]byte
	num [][]byte
}

func (d *rowDecoder) size(n int) {
	if len(d.out) != n {
		d.out = make([][]byte, n)
		d.num = make([][]byte, n)
	}
}

// decode reads one row (ProtocolBinary::ResultsetRow: 0x00, a NULL bitmap
// offset by 2, then the values) into d.out.
func (d *rowDecoder) decode(p []byte, cols []column) error {
	d.size(len(cols))
	nb := (len(cols) + 9) / 8
	if len(p) < 1+nb || p[0] != iOK {
		return errMalformed
	}
	nulls, pos := p[1:1+nb], 1+nb
	for i, col := range cols {
		if nulls[(i+2)/8]&(1<<((i+2)%8)) != 0 {
			d.out[i] = nil
			continue
		}
		n, err := d.value(i, col, p[pos:])
		if err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// value decodes column i's value at the start of p and returns its size.
func (d *rowDecoder) value(i int, col column, p []byte) (int, error) {
	b := d.num[i][:0]
	var n int
	switch col.typ {
	case typeTiny:
		n = 1
		if len(p) >= n {
			b = appendInt(b, int64(int8(p[0])), uint64(p[0]), col.unsigned)
		}
	case typeShort, typeYear:
		n = 2
		if len(p) >= n {
			v := binary.LittleEndian.Uint16(p)
			b = appendInt(b, int64(int16(v)), uint64(v), col.unsigned)
		}
	case typeLong, typeInt24:
		n = 4
		if len(p) >= n {
			v := binary.LittleEndian.Uint32(p)
			b = appendInt(b, int64(int32(v)), uint64(v), col.unsigned)
		}
	case typeLonglong:
		n = 8
		if len(p) >= n {
			v := binary.LittleEndian.Uint64(p)
			b = appendInt(b, int64(v), v, col.unsigned)
		}
	case typeFloat:
		n = 4
		if len(p) >= n {
			b = strconv.AppendFloat(b, float64(math.Float32frombits(binary.LittleEndian.Uint32(p))), 'f', -1, 32)
		}
	case typeDouble:
		n = 8
		if len(p) >= n {
			b = strconv.AppendFloat(b, math.Float64frombits(binary.LittleEndian.Uint64(p)), 'f', -1, 64)
		}
	case typeDate, typeNewdate, typeDatetime, typeTimestamp:
		if len(p) >= 1 && len(p) > int(p[0]) {
			n = 1 + int(p[0])
			b = appendDatetime(b, p[1:n], col)
		}
	case typeTime:
		if len(p) >= 1 && len(p) > int(p[0]) {
			n = 1 + int(p[0])
			b = appendTime(b, p[1:n], col.decimals)
		}
	default:
		v, size, ok := lenEncBytes(p)
		if !ok || v == nil {
			return 0, errMalformed
		}
		d.out[i] = v
		return size, nil
	}
	if n == 0 || len(p) < n {
		return 0, errMalformed
	}
	d.num[i] = b
	d.out[i] = b
	return n, nil
}

func appendInt(b []byte, signed int64, unsigned uint64, isUnsigned bool) []byte {
	if isUnsigned {
		return strconv.AppendUint(b, unsigned, 10)
	}
	return strconv.AppendInt(b, signed, 10)
}

// appendDatetime writes a binary DATE/DATETIME (0, 4, 7 or 11 bytes: year,
// month, day, hour, minute, second, microseconds) as the text protocol
// would: YYYY-MM-DD[ hh:mm:ss[.ffffff]] with the column's fraction digits.
func appendDatetime(b, v []byte, col column) []byte {
	var year, month, day, hour, minute, second, micro int
	if len(v) >= 4 {
		year, month, day = int(binary.LittleEndian.Uint16(v)), int(v[2]), int(v[3])
	}
	if len(v) >= 7 {
		hour, minute, second = int(v[4]), int(v[5]), int(v[6])
	}
	if len(v) >= 11 {
		micro = int(binary.LittleEndian.Uint32(v[7:]))
	}
	b = appendPadded(b, year, 4)
	b = appendPadded(append(b, '-'), month, 2)
	b = appendPadded(append(b, '-'), day, 2)
	if col.typ == typeDate || col.typ == typeNewdate {
		return b
	}
	b = appendPadded(append(b, ' '), hour, 2)
	b = appendPadded(append(b, ':'), minute, 2)
	b = appendPadded(append(b, ':'), second, 2)
	return appendFraction(b, micro, col.decimals)
}

// appendTime writes a binary TIME (0, 8 or 12 bytes: sign, days, hours,
// minutes, seconds, microseconds) as [-]hhh:mm:ss[.ffffff].
func appendTime(b, v []byte, decimals byte) []byte {
	var hours, minute, second, micro int
	if len(v) >= 8 {
		if v[0] == 1 {
			b = append(b, '-')
		}
		hours = int(binary.LittleEndian.Uint32(v[1:]))*24 + int(v[5])
		minute, second = int(v[6]), int(v[7])
	}
	if len(v) >= 12 {
		micro = int(binary.LittleEndian.Uint32(v[8:]))
	}
	b = appendPadded(b, hours, 2)
	b = appendPadded(append(b, ':'), minute, 2)
	b = appendPadded(append(b, ':'), second, 2)
	return appendFraction(b, micro, decimals)
}

// appendFraction writes the first decimals digits of the microseconds, as
// a DATETIME(n) or TIME(n) column shows them (decimals above 6 mean none).
func appendFraction(b []byte, micro int, decimals byte) []byte {
	if decimals == 0 || decimals > 6 {
		return b
	}
	b = append(b, '.')
	for div := 100000; decimals > 0; decimals, div = decimals-1, div/10 {
		b = append(b, byte('0'+micro/div%10))
	}
	return b
}

func appendPadded(b []byte, v, width int) []byte {
	start := len(b)
	b = strconv.AppendInt(b, int64(v), 10)
	for len(b)-start < width {
		b = append(b, 0)
		copy(b[start+1:], b[start:])
		b[start] = '0'
	}
	return b
}
