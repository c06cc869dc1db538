package oltp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

// wrapLayer marks what a server-side column layer would do, so the
// rewritten statements can be read.
type wrapLayer struct{}

func (wrapLayer) Spec() layer.Spec                         { return layer.Spec{Layer: "wrap"} }
func (wrapLayer) Require(context.Context, layer.Env) error { return nil }
func (wrapLayer) Leakage() string                          { return "" }
func (wrapLayer) ColumnType(n int) string                  { return fmt.Sprintf("BIN(%d)", n) }
func (wrapLayer) Write(e string) string                    { return "ENC(" + e + ")" }
func (wrapLayer) Read(c string) string                     { return "DEC(" + c + ")" }
func (wrapLayer) SessionSetup() ([]string, error)          { return nil, nil }
func (wrapLayer) Convert(c layer.Column) []string          { return nil }
func (wrapLayer) Prove(context.Context, layer.Env) (proof.LayerProof, error) {
	return proof.LayerProof{}, nil
}

// Every statement that reads or writes c or pad goes through the layer,
// and none reads or writes them around it.
func TestServerColumnsRewriteEveryTextColumn(t *testing.T) {
	w := &Workload{name: "oltp_read_write", opts: Options{Tables: 1}}
	if err := w.UseServerColumns(wrapLayer{}); err != nil {
		t.Fatal(err)
	}
	all := append([]string{}, stmtSQL[:]...)
	all = append(all, "SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?)",
		"INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)")
	for _, sql := range all {
		got := w.serverSQL(sql)
		bare := strings.NewReplacer("DEC(c)", "", "DEC(pad)", "", "ENC(?)", "", "SET c=", "", "AS c", "", "AS pad", "",
			"ORDER BY c", "", "(id, k, c, pad)", "", "(k, c, pad)", "").Replace(got)
		if strings.Contains(bare, " c ") || strings.Contains(bare, " c,") || strings.Contains(bare, "pad ") {
			t.Errorf("%q became %q: a text column is used around the layer", sql, got)
		}
	}
	if got := w.serverSQL(stmtSQL[stNonIndexUpdate]); got != "UPDATE sbtest%d SET c=ENC(?) WHERE id=?" {
		t.Errorf("non-index update: %q", got)
	}
	if got := w.serverSQL(stmtSQL[stInsert]); got != "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ENC(?), ENC(?))" {
		t.Errorf("insert: %q", got)
	}
	if got := w.serverSQL(stmtSQL[stOrderRange]); got != "SELECT DEC(c) AS c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c" {
		t.Errorf("order range: %q", got)
	}
	if (&Workload{name: "enc_point_select_k"}).UseServerColumns(wrapLayer{}) == nil {
		t.Error("a workload that encrypts in the client took a server-side column layer too")
	}
}
