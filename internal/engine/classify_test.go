package engine_test

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/encbench/encbench/internal/engine"
	mongoengine "github.com/encbench/encbench/internal/engine/mongo"
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

// MongoDB: a transient transaction error (a write conflict) may be
// retried, a duplicate key is a unique violation, both keep their code;
// an error no server reported stops the run.
func TestClassifyMongo(t *testing.T) {
	m := mongoengine.Engine{}
	conflict := mongo.CommandError{Code: 112, Name: "WriteConflict", Labels: []string{"TransientTransactionError"}}
	if e := m.ClassifyError(fmt.Errorf("update: %w", conflict)); e.Kind != engine.ErrSerialization || e.Code != "112" {
		t.Errorf("write conflict: %+v", e)
	}
	dup := mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key"}}}
	if e := m.ClassifyError(dup); e.Kind != engine.ErrUniqueViolation || e.Code != "11000" {
		t.Errorf("duplicate key: %+v", e)
	}
	if e := m.ClassifyError(mongo.CommandError{Code: 2, Name: "BadValue"}); e.Kind != engine.ErrServer || e.Code != "2" {
		t.Errorf("another server error: %+v", e)
	}
	if e := m.ClassifyError(errors.New("decoding a document")); e.Kind != engine.ErrFatal {
		t.Errorf("a client-side error: %+v", e)
	}
	if !slices.Equal(m.DefaultIgnoredErrors(), []string{"serialization"}) {
		t.Error("MongoDB's default is write conflicts only")
	}
}
