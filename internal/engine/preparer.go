package engine

import (
	"context"
	"fmt"
)

// Preparer prepares a worker's statements on its connection until the
// first error, which it keeps in Err: a worker prepares its whole set,
// then checks once.
type Preparer struct {
	Ctx  context.Context
	Conn Conn
	Err  error
}

// Prepare prepares the statement format makes with args (format as it
// is without args), or returns nil after an earlier error.
func (p *Preparer) Prepare(format string, args ...any) Stmt {
	if p.Err != nil {
		return nil
	}
	sql := format
	if len(args) > 0 {
		sql = fmt.Sprintf(format, args...)
	}
	var s Stmt
	s, p.Err = p.Conn.Prepare(p.Ctx, sql)
	return s
}
