package engine

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Clock is an engine that reads its server's clock, so load generators on
// several machines can check theirs before starting together.
type Clock interface {
	ServerTime(ctx context.Context, c Conn) (time.Time, error)
}

// QueryTime runs sql, which returns the server's clock as seconds since
// the epoch with a fraction ("1732431234.5"), and reads it.
func QueryTime(ctx context.Context, c Conn, sql string) (time.Time, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		return time.Time{}, fmt.Errorf("reading the server's clock (%s): %v", sql, err)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(rows[0][0]), 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the server's clock: not a time in seconds: %q", rows[0][0])
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*1e9)), nil
}
