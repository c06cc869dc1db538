package workload

import (
	"context"
	"fmt"
	"strconv"

	"github.com/encbench/encbench/internal/engine"
)

// ReadTableStorage reads each table's rows and sizes with the dialect's size
// query: what column encryption costs in storage, beside its cost in time.
func ReadTableStorage(ctx context.Context, c engine.Conn, d engine.Dialect, tables []string) ([]TableStorage, error) {
	if d.TableSize == "" {
		return nil, nil
	}
	var out []TableStorage
	for _, t := range tables {
		rows, err := c.Query(ctx, fmt.Sprintf(d.TableSize, t))
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", t, err)
		}
		if len(rows) != 1 || len(rows[0]) != 3 {
			return nil, fmt.Errorf("size of %s: the server returned %d rows", t, len(rows))
		}
		var n [3]int64
		for i, v := range rows[0] {
			if n[i], err = strconv.ParseInt(v, 10, 64); err != nil {
				return nil, fmt.Errorf("size of %s: %q is not a number", t, v)
			}
		}
		out = append(out, TableStorage{Table: t, Rows: n[0], TableBytes: n[1], IndexBytes: n[2]})
	}
	return out, nil
}
