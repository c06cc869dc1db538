package mysql

import (
	"encoding/binary"
	"fmt"
)

// serverMoreResultsExists: another result follows this one (a CALL).
const serverMoreResultsExists = 0x0008

// column is what decoding a binary row needs of a column definition.
type column struct {
	typ      byte
	unsigned bool
	decimals byte
}

// readColumn parses a ColumnDefinition41 packet: six length-encoded names,
// then the fixed fields (charset, length, type, flags, decimals).
func readColumn(p []byte) (column, error) {
	_, col, err := readColumnNamed(p)
	return col, err
}

// readColumnNamed is readColumn with the column's name (the fifth of the
// six), for a statement's description; results skip it.
func readColumnNamed(p []byte) ([]byte, column, error) {
	pos := 0
	var name []byte
	for i := range 6 {
		v, n, ok := lenEncBytes(p[pos:])
		if !ok {
			return nil, column{}, errMalformed
		}
		if i == 4 {
			name = v
		}
		pos += n
	}
	_, n, _ := lenEnc(p[pos:])
	if n == 0 || len(p) < pos+n+10 {
		return nil, column{}, errMalformed
	}
	f := p[pos+n:]
	return name, column{typ: f[6], unsigned: binary.LittleEndian.Uint16(f[7:])&0x20 != 0, decimals: f[9]}, nil
}

// reply reads a command's whole reply: OK, ERR or result sets. Rows go to
// row as packets; the first error row returns is kept while the rest of the
// reply is read, so the session stays in step. cols is the statement's
// column list, replaced when the server sends the metadata.
func (c *conn) reply(cols *[]column, row func([]byte) error) error {
	var rowErr error
	for {
		p, err := c.w.readPacket()
		if err != nil {
			return err
		}
		if len(p) == 0 {
			return c.w.fail(errMalformed)
		}
		var status uint16
		switch p[0] {
		case iOK:
			status, err = okStatus(p)
		case iERR:
			return serverError(p)
		case iLocalInFile:
			return c.refuseLocalFile()
		default:
			status, err = c.resultSet(p, cols, row, &rowErr)
		}
		if err != nil {
			return err
		}
		if status&serverMoreResultsExists == 0 {
			return rowErr
		}
	}
}

// refuseLocalFile answers LOAD DATA LOCAL with an empty file, as a client
// that allows none does, and returns the statement's outcome as an error.
func (c *conn) refuseLocalFile() error {
	c.w.out = append(c.w.out[:0], 0, 0, 0, 0)
	if err := c.w.send(); err != nil {
		return err
	}
	if err := c.reply(nil, nil); err != nil {
		return err
	}
	return fmt.Errorf("the statement asked to send a local file, which encbench never does")
}

func (c *conn) resultSet(p []byte, cols *[]column, row func([]byte) error, rowErr *error) (uint16, error) {
	n, size, _ := lenEnc(p)
	if size == 0 {
		return 0, c.w.fail(errMalformed)
	}
	follows := true
	if c.cacheMeta {
		if len(p) <= size {
			return 0, c.w.fail(errMalformed)
		}
		follows = p[size] == 1
	}
	if follows {
		if err := c.readColumns(int(n), cols); err != nil {
			return 0, err
		}
	} else if cols == nil || len(*cols) != int(n) {
		return 0, c.w.fail(fmt.Errorf("the server sent no metadata for %d unknown columns: %w", n, errMalformed))
	}
	for {
		q, err := c.w.readPacket()
		if err != nil {
			return 0, err
		}
		switch {
		case len(q) == 0:
			return 0, c.w.fail(errMalformed)
		case q[0] == iERR:
			return 0, serverError(q)
		case q[0] == iEOF && c.deprecateEOF && len(q) < maxPayload:
			return okStatus(q)
		case q[0] == iEOF && !c.deprecateEOF && len(q) < 9:
			if len(q) < 5 {
				return 0, c.w.fail(errMalformed)
			}
			return binary.LittleEndian.Uint16(q[3:]), nil
		}
		if row != nil && *rowErr == nil {
			*rowErr = row(q)
		}
	}
}

// readColumns reads n column definitions (and the EOF after them, for a
// server that still sends one) into cols, or skips them if cols is nil.
func (c *conn) readColumns(n int, cols *[]column) error {
	var list []column
	if cols != nil {
		list = (*cols)[:0]
	}
	for range n {
		p, err := c.w.readPacket()
		if err != nil {
			return err
		}
		if cols == nil {
			continue
		}
		col, err := readColumn(p)
		if err != nil {
			return c.w.fail(err)
		}
		list = append(list, col)
	}
	if cols != nil {
		*cols = list
	}
	if n > 0 && !c.deprecateEOF {
		if _, err := c.w.readPacket(); err != nil {
			return err
		}
	}
	return nil
}

// textRow splits a text-protocol row into its values (nil for NULL).
func textRow(p []byte, out [][]byte) error {
	pos := 0
	for i := range out {
		v, n, ok := lenEncBytes(p[pos:])
		if !ok {
			return errMalformed
		}
		out[i] = v
		pos += n
	}
	return nil
}
