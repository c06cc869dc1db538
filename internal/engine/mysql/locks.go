package mysql

import (
	"context"
	"fmt"
	"strconv"
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
	status, err := statusValues(ctx, c, "Innodb_row_lock_waits", "Innodb_row_lock_time")
	if err != nil {
		return engine.LockWaits{}, fmt.Errorf("reading InnoDB's row lock waits: %w", err)
	}
	var n [2]int64
	for i, name := range []string{"innodb_row_lock_waits", "innodb_row_lock_time"} {
		v, ok := status[name]
		if !ok {
			return engine.LockWaits{}, fmt.Errorf("the server reports no InnoDB row lock counters (no %s)", name)
		}
		if n[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			return engine.LockWaits{}, fmt.Errorf("InnoDB's %s is %q: %w", name, v, err)
		}
	}
	return engine.LockWaits{Waits: n[0], Time: time.Duration(n[1]) * time.Millisecond}, nil
}
