package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// LockWaitSource: InnoDB's row lock counters, which MariaDB and MySQL
// both keep (the time in milliseconds).
func (Engine) LockWaitSource() string {
	return "SHOW GLOBAL STATUS Innodb_row_lock_waits, Innodb_row_lock_time"
}

// LockWaits reads InnoDB's row lock waits since the server started.
func (Engine) LockWaits(ctx context.Context, c engine.Conn) (engine.LockWaits, error) {
	rows, err := c.Query(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_waits', 'Innodb_row_lock_time')")
	if err != nil {
		return engine.LockWaits{}, fmt.Errorf("reading InnoDB's row lock waits: %w", err)
	}
	var out engine.LockWaits
	seen := 0
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		n, err := strconv.ParseInt(r[1], 10, 64)
		if err != nil {
			return engine.LockWaits{}, fmt.Errorf("InnoDB's %s is %q: %w", r[0], r[1], err)
		}
		switch strings.ToLower(r[0]) {
		case "innodb_row_lock_waits":
			out.Waits, seen = n, seen+1
		case "innodb_row_lock_time":
			out.Time, seen = time.Duration(n)*time.Millisecond, seen+1
		}
	}
	if seen != 2 {
		return engine.LockWaits{}, fmt.Errorf("the server reports no InnoDB row lock counters (%d of 2)", seen)
	}
	return out, nil
}
