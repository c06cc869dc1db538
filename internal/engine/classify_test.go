package engine_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/mysql"
	"github.com/encbench/encbench/internal/engine/postgres"
)

// sysbench ignores (and retries) exactly these errors.
func TestClassifyFollowsSysbench(t *testing.T) {
	pg := postgres.Engine{}
	for code, want := range map[string]engine.ErrorClass{
		"40P01": engine.ErrIgnorable, "40001": engine.ErrIgnorable, "23505": engine.ErrIgnorable,
		"42P01": engine.ErrFatal, "57P01": engine.ErrConnLost,
	} {
		err := fmt.Errorf("exec: %w", &pgconn.PgError{Code: code})
		if got := pg.ClassifyError(err); got != want {
			t.Errorf("postgres %s: class %d, want %d", code, got, want)
		}
	}
	my := mysql.Engine{}
	for num, want := range map[uint16]engine.ErrorClass{
		1213: engine.ErrIgnorable, 1020: engine.ErrIgnorable, 1205: engine.ErrIgnorable,
		1062: engine.ErrFatal, 2013: engine.ErrConnLost,
	} {
		if got := my.ClassifyError(&gomysql.MySQLError{Number: num}); got != want {
			t.Errorf("mysql %d: class %d, want %d", num, got, want)
		}
	}
	if my.ClassifyError(io.EOF) != engine.ErrConnLost {
		t.Error("a closed MySQL connection should count as lost")
	}
	if pg.ClassifyError(errors.New("syntax")) != engine.ErrFatal {
		t.Error("an unknown error should stop the run")
	}
}
