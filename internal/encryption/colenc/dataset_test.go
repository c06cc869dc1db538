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

// TestRndUsesCounted: the primary rnd key's seals are counted (64 nonces
// at a time) into a private file beside the keyset, and a warning comes
// from a quarter of NIST's 2^32 on.
func TestRndUsesCounted(t *testing.T) {
	p, c := newKeys(t)
	f, err := c.Field(customerCity)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, err := f.Encrypt([]byte{byte(i)}, Text("x")); err != nil {
			t.Fatal(err)
		}
	}
	total, err := c.RecordRndUses(p)
	if err != nil || total < 1000 || total > 1000+64 {
		t.Fatalf("recorded %d, %v; want 1000 to 1064", total, err)
	}
	if again, err := c.RecordRndUses(p); err != nil || again != total {
		t.Fatalf("a second record without seals: %d, %v", again, err)
	}
	uses, err := RndUses(p)
	if err != nil || len(uses) != 1 {
		t.Fatalf("uses %v, %v", uses, err)
	}
	if st, err := os.Stat(p.Keyset + ".rnd-uses"); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", st, err)
	}
	if RndWarning(RndWarnAt-1) != "" || !strings.Contains(RndWarning(RndWarnAt), "keys rotate") || RndWarnAt > RndLimit/2 {
		t.Fatal("the warning does not come well before 2^32")
	}
}

// TestKeyFilesRefuseSymlinksAndDefaultToAPrivateDir: a key file reached
// through a symbolic link is refused, and the default master key lives in
// the user's configuration directory (created 0700), not the working one.
func TestKeyFilesRefuseSymlinksAndDefaultToAPrivateDir(t *testing.T) {
	p, _ := newKeys(t)
	link := filepath.Join(filepath.Dir(p.MasterKey), "link.json")
	if err := os.Symlink(p.MasterKey, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Paths{MasterKey: link, Keyset: p.Keyset}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a master key through a link: %v", err)
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	def := DefaultMasterKey()
	if def != filepath.Join(home, "config", "encbench", "master.json") {
		t.Fatalf("default master key %q", def)
	}
	if _, err := Init(Paths{MasterKey: def}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Dir(def)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v", filepath.Dir(def), st, err)
	}
	if _, _, err := masterKey("", false); err == nil {
		t.Fatal("an empty master key path was taken")
	}
}
