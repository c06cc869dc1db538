package mysql

import (
	"errors"
	"testing"
)

// FuzzRowDecode feeds arbitrary column definitions and rows to the
// parsers of server replies: a reply that does not parse must be refused
// with errMalformed, never read out of bounds.
func FuzzRowDecode(f *testing.F) {
	f.Add(columnDef("c", typeDatetime, 0, 6), []byte{0, 0, 11, 0xea, 0x07, 11, 26, 9, 5, 7, 1, 2, 3, 4})
	f.Add(columnDef("s", typeString, 0, 0), []byte{0, 0, 0xfc, 0xff})
	f.Add([]byte{0xfe}, []byte{1, 0xfb, 3})
	f.Fuzz(func(t *testing.T, def, row []byte) {
		var cols []column
		if col, err := readColumn(def); err == nil {
			cols = []column{col, col}
		} else if !errors.Is(err, errMalformed) {
			t.Fatalf("readColumn: %v", err)
		}
		var d rowDecoder
		if err := d.decode(row, cols); err != nil && !errors.Is(err, errMalformed) {
			t.Fatalf("decode: %v", err)
		}
		if err := textRow(row, make([][]byte, 3)); err != nil && !errors.Is(err, errMalformed) {
			t.Fatalf("textRow: %v", err)
		}
		if len(row) > 0 {
			_, _ = okStatus(row)
			_ = serverError(row)
		}
	})
}
