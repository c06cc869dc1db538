package colenc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataSetsShareNoMask: the same identifier under two data sets of one
// keyset gives ciphertexts whose difference is not the values' difference
// (times 2^16), as it is under one data set.
func TestDataSetsShareNoMask(t *testing.T) {
	p, _ := newKeys(t)
	base, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.AsheEncrypt(Column{Table: "t", Name: "k", Scheme: Ashe}, 1, 1); err == nil {
		t.Fatal("an ashe key without a data set")
	}
	col := Column{Table: "sbtest1", Name: "k", Scheme: Ashe}
	one, _ := base.ForDataSet(NewDataSet())
	two, _ := base.ForDataSet(NewDataSet())
	again, _ := base.ForDataSet(one.dataSet)
	for id := uint64(1); id <= 1000; id++ {
		m1, m2 := int64(id*7), int64(id*13)
		a, _ := one.AsheEncrypt(col, id, m1)
		b, _ := two.AsheEncrypt(col, id, m2)
		if uint64(b)-uint64(a) == uint64(m2-m1)*AsheOne {
			t.Fatalf("identifier %d: two data sets' ciphertexts differ by the values' difference", id)
		}
		c, _ := again.AsheEncrypt(col, id, m2)
		if uint64(c)-uint64(a) != uint64(m2-m1)*AsheOne {
			t.Fatalf("identifier %d: one data set's masks are not its own", id)
		}
	}
	sealed, err := one.SealDataSet(one.dataSet)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := base.OpenDataSet(sealed); err != nil || string(got) != string(one.dataSet) {
		t.Fatalf("sealed nonce read back as %x, %v", got, err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := base.OpenDataSet(sealed); err == nil {
		t.Fatal("a modified sealed nonce authenticated")
	}
	if _, err := base.ForDataSet([]byte("short")); err == nil {
		t.Fatal("a 5-byte nonce was taken")
	}
}

// TestLedgerRefusesACounterSetBack: a reservation below the floor or below
// what was reserved before is refused; the file is private.
func TestLedgerRefusesACounterSetBack(t *testing.T) {
	p, _ := newKeys(t)
	l := LedgerFor(p)
	ds, other := NewDataSet(), NewDataSet()
	if err := l.Reserve(ds, 5, 10, 1<<40); err == nil || !strings.Contains(err.Error(), "set back") {
		t.Fatalf("a counter below the floor: %v", err)
	}
	if err := l.Reserve(ds, 1<<40, 1024, 1<<40); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(ds, 1<<40+1000, 1024, 1<<40); err == nil {
		t.Fatal("an overlapping reservation was taken")
	}
	if err := l.Reserve(ds, 1<<40+1024, 1024, 1<<40); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(other, 1<<40, 1024, 1<<40); err != nil {
		t.Fatalf("another data set's marks got in the way: %v", err)
	}
	st, err := os.Stat(l.Path())
	if err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(l.Path()) != filepath.Dir(p.Keyset) {
		t.Fatalf("ledger %s: %v %v", l.Path(), st, err)
	}
}
