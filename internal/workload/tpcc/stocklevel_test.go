package tpcc

import (
	"slices"
	"testing"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// stubStmt answers every call with rows and keeps the last arguments.
type stubStmt struct {
	rows [][][]byte
	args []engine.Arg
}

func (s *stubStmt) Exec(args []engine.Arg) error {
	return s.Query(args, func([][]byte) error { return nil })
}

func (s *stubStmt) Query(args []engine.Arg, row func([][]byte) error) error {
	s.args = slices.Clone(args)
	for _, r := range s.rows {
		if err := row(r); err != nil {
			return err
		}
	}
	return nil
}

// With OL_O_ID encrypted (det), StockLevel sends its 20 order ids as
// ciphertexts in byte order, each once, between the plaintext warehouse
// and district and the warehouse of the stock join; again on a second call
// that reuses the worker's argument buffer.
func TestStockLevelWindowInByteOrder(t *testing.T) {
	dir := t.TempDir()
	cipher, _, err := colenc.OpenForPrepare(colenc.Paths{MasterKey: dir + "/m.json", Keyset: dir + "/k.json"})
	if err != nil {
		t.Fatal(err)
	}
	s := newSchema()
	k, err := newCodec(s, 20, cipher)
	if err != nil {
		t.Fatal(err)
	}
	const next = 3001
	nextArg, err := k.Int(s.dNextOID, AppendRowKey(nil, 1, 1), next)
	if err != nil {
		t.Fatal(err)
	}
	count := &stubStmt{rows: [][][]byte{{[]byte("3")}}}
	wk := &worker{s: s, k: k, home: 1, slDist: 1, c: &workload.Counters{}, lowSeen: map[int64]bool{}}
	wk.in.threshold = 15
	wk.st.begin, wk.st.commit = &stubStmt{}, &stubStmt{}
	wk.st.slDist, wk.st.slCount = &stubStmt{rows: [][][]byte{{nextArg.Str}}}, count
	for call := 1; call <= 2; call++ {
		if err := wk.stockLevel(); err != nil {
			t.Fatal(err)
		}
		a := count.args
		if len(a) != 2+slOrders+2 || a[0].Int != 1 || a[1].Int != 1 || a[22].Int != 1 || a[23].Int != 15 {
			t.Fatalf("call %d: %d arguments %+v: want w, d, %d order ids, w, threshold", call, len(a), a, slOrders)
		}
		window := a[2 : 2+slOrders]
		if !slices.IsSortedFunc(window, engine.ByBytes) {
			t.Errorf("call %d: order ids not in byte order", call)
		}
		var ids []int64
		for _, x := range window {
			id, err := k.GetInt(s.olOID, nil, x.Str)
			if err != nil {
				t.Fatalf("call %d: %v", call, err)
			}
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for i, id := range ids {
			if id != next-slOrders+int64(i) {
				t.Fatalf("call %d: order ids %v, want %d..%d once each", call, ids, next-slOrders, next-1)
			}
		}
	}
}
