package engine_test

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/mysql"
	"github.com/encbench/encbench/internal/engine/postgres"
)

// Errors keep the server's code and get the kind the error policy acts
// on; by default exactly sysbench's drivers' lists are ignored.
func TestClassifyKeepsCodesAndFollowsSysbench(t *testing.T) {
	pg := postgres.Engine{}
	for code, want := range map[string]engine.ErrorKind{
		"40P01": engine.ErrDeadlock, "40001": engine.ErrSerialization, "23505": engine.ErrUniqueViolation,
		"55P03": engine.ErrLockTimeout, "42P01": engine.ErrServer, "57P01": engine.ErrConnLost, "08006": engine.ErrConnLost,
	} {
		err := fmt.Errorf("exec: %w", &pgconn.PgError{Code: code})
		if got := pg.ClassifyError(err); got.Kind != want || got.Code != code {
			t.Errorf("postgres %s: %+v, want kind %v", code, got, want)
		}
	}
	my := mysql.Engine{}
	for num, want := range map[uint16]engine.ErrorKind{
		1213: engine.ErrDeadlock, 1020: engine.ErrSerialization, 1205: engine.ErrLockTimeout,
		1062: engine.ErrUniqueViolation, 1146: engine.ErrServer, 2013: engine.ErrConnLost, 1927: engine.ErrConnLost,
	} {
		if got := my.ClassifyError(&gomysql.MySQLError{Number: num}); got.Kind != want || got.Code != fmt.Sprint(num) {
			t.Errorf("mysql %d: %+v, want kind %v", num, got, want)
		}
	}
	if my.ClassifyError(io.EOF).Kind != engine.ErrConnLost || pg.ClassifyError(io.ErrUnexpectedEOF).Kind != engine.ErrConnLost {
		t.Error("a closed connection should count as lost")
	}
	if pg.ClassifyError(errors.New("decrypting c: message authentication failed")).Kind != engine.ErrFatal {
		t.Error("a client-side error should stop the run")
	}
	for _, e := range []engine.Engine{pg, my} {
		set, err := engine.ParseIgnoreSet(fmt.Sprint(e.DefaultIgnoredErrors()[0]))
		if err != nil || len(set.Codes) != 1 {
			t.Errorf("%s's default list does not parse: %v", e.Kind(), err)
		}
	}
	if !slices.Equal(pg.DefaultIgnoredErrors(), []string{"40P01", "40001", "23505"}) || !slices.Equal(my.DefaultIgnoredErrors(), []string{"1213", "1020", "1205"}) {
		t.Error("the default lists are no longer sysbench's")
	}
}
