package colenc

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/locale"
)

func newKeys(t testing.TB) (Paths, *Cipher) {
	t.Helper()
	dir := t.TempDir()
	p := Paths{MasterKey: filepath.Join(dir, "master.json"), Keyset: filepath.Join(dir, "keyset.json")}
	created, err := Init(p)
	if err != nil || !created {
		t.Fatalf("init: created %v, %v", created, err)
	}
	c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	// Bound to one data set, as a workload's cipher is for ashe columns.
	if c, err = c.ForDataSet(testDataSet); err != nil {
		t.Fatal(err)
	}
	return p, c
}

var testDataSet = []byte("0123456789abcdef")

var (
	customerLast = Column{Table: "customer", Name: "c_last", Scheme: Det}
	customerBal  = Column{Table: "customer", Name: "c_balance", Scheme: Rnd}
	customerCity = Column{Table: "customer", Name: "c_city", Scheme: Rnd}
)

func TestRoundTripsEveryKind(t *testing.T) {
	_, c := newKeys(t)
	dec, _ := ParseDecimal("-1234.56", 2)
	values := []Value{Int(0), Int(-1), Int(1 << 62), dec, Decimal(5, 0), Date(time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC)),
		Text(""), Text("BARBARABLE"), Text("naïve ☃")}
	for _, col := range []Column{customerLast, customerBal} {
		for _, v := range values {
			ct, err := c.Encrypt(col, []byte("1/1/42"), v)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(ct, []byte(v.String())) && v.String() != "" && v.Kind == KindText {
				t.Errorf("%s: ciphertext contains the plaintext %q", col.Scheme, v.String())
			}
			got, err := c.Decrypt(col, []byte("1/1/42"), ct)
			if err != nil || got != v {
				t.Errorf("%s %v: got %v, %v", col.Scheme, v, got, err)
			}
		}
	}
	if dec.String() != "-1234.56" || Date(time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)).String() != "2026-11-22" {
		t.Errorf("rendering: %s", dec)
	}
}

func TestDeterministicOnlyWhereAsked(t *testing.T) {
	_, c := newKeys(t)
	a1, _ := c.Encrypt(customerLast, []byte("row1"), Text("OUGHTABLE"))
	a2, _ := c.Encrypt(customerLast, []byte("row2"), Text("OUGHTABLE"))
	if !bytes.Equal(a1, a2) {
		t.Error("det: equal values in two rows differ")
	}
	r1, _ := c.Encrypt(customerBal, []byte("row1"), Int(10))
	r2, _ := c.Encrypt(customerBal, []byte("row1"), Int(10))
	if bytes.Equal(r1, r2) {
		t.Error("rnd: two encryptions are equal")
	}
}

func TestMovedOrTamperedCiphertextIsRejected(t *testing.T) {
	_, c := newKeys(t)
	ct, _ := c.Encrypt(customerBal, []byte("1/1/1"), Decimal(-1000, 2))
	if _, err := c.Decrypt(customerCity, []byte("1/1/1"), ct); err == nil {
		t.Error("a value moved to another column decrypted")
	}
	if _, err := c.Decrypt(customerBal, []byte("1/1/2"), ct); err == nil {
		t.Error("a value moved to another row decrypted")
	}
	det, _ := c.Encrypt(customerLast, nil, Text("ABLE"))
	if _, err := c.Decrypt(Column{Table: "customer", Name: "c_first", Scheme: Det}, nil, det); err == nil {
		t.Error("a det value moved to another column decrypted")
	}
	for i := range ct {
		bad := bytes.Clone(ct)
		bad[i] ^= 0x01
		if _, err := c.Decrypt(customerBal, []byte("1/1/1"), bad); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
}

func TestWrongKeysAndFileChecks(t *testing.T) {
	p, c := newKeys(t)
	ct, _ := c.Encrypt(customerBal, []byte("r"), Int(7))
	// Another keyset cannot decrypt.
	_, other := newKeys(t)
	if _, err := other.Decrypt(customerBal, []byte("r"), ct); err == nil {
		t.Error("another keyset decrypted")
	}
	// Another master key cannot open the keyset.
	q := Paths{MasterKey: filepath.Join(t.TempDir(), "m.json"), Keyset: p.Keyset}
	if _, _, err := masterKey(q.MasterKey, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(q); err == nil || !strings.Contains(err.Error(), "wrong master key") || errs.ExitCode(err) != 2 {
		t.Errorf("wrong master key: %v", err)
	}
	// Missing files and loose modes are clear errors.
	if _, err := Open(Paths{MasterKey: p.MasterKey, Keyset: p.Keyset + ".missing"}); err == nil || !strings.Contains(err.Error(), "keys init") {
		t.Errorf("missing keyset: %v", err)
	}
	if _, err := Open(Paths{MasterKey: p.MasterKey + ".missing", Keyset: p.Keyset}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing master key: %v", err)
	}
	if err := os.Chmod(p.Keyset, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable keyset: %v", err)
	}
	os.Chmod(p.Keyset, 0o600)
	if _, err := Init(p); err == nil {
		t.Error("init overwrote a keyset")
	}
	for _, f := range []string{p.MasterKey, p.Keyset} {
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %o", f, st.Mode().Perm())
		}
	}
}

func TestRotationKeepsOldCiphertext(t *testing.T) {
	p, c := newKeys(t)
	oldRnd, _ := c.Encrypt(customerBal, []byte("r"), Int(42))
	oldDet, _ := c.Encrypt(customerLast, nil, Text("PRES"))
	if err := Rotate(p); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c2.Decrypt(customerBal, []byte("r"), oldRnd); err != nil || v != Int(42) {
		t.Errorf("old rnd after rotation: %v %v", v, err)
	}
	if v, err := c2.Decrypt(customerLast, nil, oldDet); err != nil || v != Text("PRES") {
		t.Errorf("old det after rotation: %v %v", v, err)
	}
	newDet, _ := c2.Encrypt(customerLast, nil, Text("PRES"))
	if bytes.Equal(newDet, oldDet) {
		t.Error("rotation did not change the primary det key")
	}
	keys, err := Show(p)
	if err != nil || len(keys) != 4 {
		t.Fatalf("show: %v %v", keys, err)
	}
	primaries := 0
	for _, k := range keys {
		if k.Primary {
			primaries++
		}
	}
	if primaries != 2 {
		t.Errorf("%d primary keys, want one per scheme", primaries)
	}
}

// TestKnownAnswer pins the ciphertext format: a fixed keyset must keep
// decrypting these vectors (and det must keep producing the same bytes).
func TestKnownAnswer(t *testing.T) {
	p := Paths{MasterKey: "testdata/master.json", Keyset: "testdata/keyset.json"}
	os.Chmod(p.MasterKey, 0o600)
	os.Chmod(p.Keyset, 0o600)
	c, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	det, _ := c.Encrypt(customerLast, nil, Text("BARBARBAR"))
	if got := hex.EncodeToString(det); got != knownDet {
		t.Errorf("det ciphertext changed:\n got %s\nwant %s", got, knownDet)
	}
	rnd, _ := hex.DecodeString(knownRnd)
	if v, err := c.Decrypt(customerBal, []byte("3/7/1201"), rnd); err != nil || v != Decimal(-1000, 2) {
		t.Errorf("known rnd vector: %v %v", v, err)
	}
}

// Written once by the test below with ENCBENCH_WRITE_KAT=1.
const (
	knownDet = "014de825450f345a4bcd4ff025ec91981c32408c73a946d6d92f591241db85"
	knownRnd = "0151ec66917552f0e02ba95e14c57b225c8888a2fa76ae8a1980d546cf7a7ca103b779f991b34ea6db881a"
)

func TestWriteKnownAnswer(t *testing.T) {
	if os.Getenv("ENCBENCH_WRITE_KAT") != "1" {
		t.Skip("set ENCBENCH_WRITE_KAT=1 to regenerate testdata")
	}
	os.RemoveAll("testdata")
	p := Paths{MasterKey: "testdata/master.json", Keyset: "testdata/keyset.json"}
	if _, err := Init(p); err != nil {
		t.Fatal(err)
	}
	c, _ := Open(p)
	det, _ := c.Encrypt(customerLast, nil, Text("BARBARBAR"))
	rnd, _ := c.Encrypt(customerBal, []byte("3/7/1201"), Decimal(-1000, 2))
	t.Logf("knownDet = %q\nknownRnd = %q", hex.EncodeToString(det), hex.EncodeToString(rnd))
}

// Finding 8, as a new user met it: a keyset defaults to a file beside its
// master key, so two master keys in two directories never share (or trip
// over) one keyset in the working directory.
func TestKeysetDefaultsBesideItsMasterKey(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	t.Chdir(t.TempDir())
	pa := Paths{MasterKey: filepath.Join(a, "m.json")}
	pb := Paths{MasterKey: filepath.Join(b, "m.json")}
	for _, p := range []Paths{pa, pb} {
		if _, created, err := OpenForPrepare(p); err != nil || !created {
			t.Fatalf("%s: created %v, %v", p.MasterKey, created, err)
		}
	}
	for _, dir := range []string{a, b} {
		if _, err := os.Stat(filepath.Join(dir, DefaultKeysetName)); err != nil {
			t.Errorf("no keyset beside the master key in %s: %v", dir, err)
		}
	}
	if _, err := os.Stat(DefaultKeysetName); err == nil {
		t.Error("a keyset was left in the working directory")
	}
}

func TestOpenForPrepareSaysWhichFileIsMissing(t *testing.T) {
	dir := t.TempDir()
	p := Paths{MasterKey: filepath.Join(dir, "m.json"), Keyset: filepath.Join(dir, "k.json")}
	if _, err := Init(p); err != nil {
		t.Fatal(err)
	}
	other := Paths{MasterKey: filepath.Join(dir, "other.json"), Keyset: p.Keyset}
	_, _, err := OpenForPrepare(other)
	if err == nil || !strings.Contains(err.Error(), "the keyset "+p.Keyset+" exists but its master key file "+other.MasterKey+" does not") {
		t.Errorf("missing master key: %v", err)
	}
	lost := Paths{MasterKey: p.MasterKey, Keyset: filepath.Join(dir, "lost.json")}
	_, _, err = OpenForPrepare(lost)
	if err == nil || !strings.Contains(err.Error(), "exists but the keyset "+lost.Keyset+" does not") {
		t.Errorf("missing keyset: %v", err)
	}
}

// Finding 8: a key file in a directory others may write to, or owned by
// someone else, is refused, not only one with group or world mode bits.
func TestKeyFilesRefusedInOpenDirectoriesOrForeignHands(t *testing.T) {
	dir := t.TempDir()
	p := Paths{MasterKey: filepath.Join(dir, "m.json"), Keyset: filepath.Join(dir, "k.json")}
	if _, err := Init(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "others may write") {
		t.Errorf("0777 directory: %v", err)
	}
	_ = os.Chmod(dir, 0o700)
	if os.Getuid() == 0 {
		_ = os.Chown(p.MasterKey, 4242, 4242)
		if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Errorf("foreign owner: %v", err)
		}
		_ = os.Chown(p.MasterKey, 0, 0)
	}
	if _, err := Open(p); err != nil {
		t.Errorf("private again: %v", err)
	}
}

// Finding 8: concurrent rotations each keep their key (a lock serialises
// read-add-write), and a rotated keyset is written durably in place.
func TestConcurrentRotationsLoseNoKey(t *testing.T) {
	dir := t.TempDir()
	p := Paths{MasterKey: filepath.Join(dir, "m.json"), Keyset: filepath.Join(dir, "k.json")}
	if _, err := Init(p); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- Rotate(p) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	keys, err := Show(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2*(n+1) {
		t.Errorf("%d keys after %d concurrent rotations, want %d", len(keys), n, 2*(n+1))
	}
	st, _ := os.Stat(p.Keyset)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("keyset mode %v", st.Mode().Perm())
	}
}

// ASHE sums decrypt with exactly the identifiers of the values summed;
// a missing or extra identifier, or another key, fails loudly (finding 7).
func TestAsheSumsOverIdentifierSets(t *testing.T) {
	p, c := newKeys(t)
	col := Column{Table: "sbtest1", Name: "k", Scheme: Ashe}
	ids := []uint64{1, 2, 3, 4, 5, 9, 20, 21, 22, 1 << 40}
	sum, want := new(big.Int), int64(0)
	for i, id := range ids {
		m := int64(i*1000 - 3000)
		v, err := c.AsheEncrypt(col, id, m)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.AsheDecrypt(col, id, v); err != nil || got != m {
			t.Fatalf("decrypt %d: %d %v", m, got, err)
		}
		sum.Add(sum, big.NewInt(v))
		want += m
	}
	runs, err := Runs(slices.Clone(ids))
	if err != nil || len(runs) != 4 {
		t.Fatalf("runs %v %v", runs, err)
	}
	if got, err := c.AsheDecryptSum(col, sum.String(), runs); err != nil || got != want {
		t.Fatalf("sum %d %v, want %d", got, err, want)
	}
	missing, _ := Runs(slices.Clone(ids[1:]))
	if got, err := c.AsheDecryptSum(col, sum.String(), missing); err == nil {
		t.Errorf("a sum decrypted with an identifier missing: %d", got)
	}
	extra, _ := Runs(append(slices.Clone(ids), 7))
	if got, err := c.AsheDecryptSum(col, sum.String(), extra); err == nil {
		t.Errorf("a sum decrypted with an extra identifier: %d", got)
	}
	if err := Rotate(p); err != nil {
		t.Fatal(err)
	}
	rotated, err := Open(p)
	if err == nil {
		rotated, err = rotated.ForDataSet(testDataSet)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rotated.AsheDecryptSum(col, sum.String(), runs); err == nil {
		t.Errorf("a sum decrypted after keys rotate: %d", got)
	}
	if _, err := Runs([]uint64{3, 4, 3}); err == nil {
		t.Error("a repeated identifier was accepted")
	}
	if _, err := c.AsheEncrypt(col, 0, 1); err == nil {
		t.Error("identifier 0 was accepted")
	}
	if _, err := c.AsheEncrypt(col, 1, AsheMax+1); err == nil {
		t.Error("a value beyond the range was accepted")
	}
}

// Finding 1: two encryptions under different (fresh) identifiers do not
// differ by the difference of their plaintexts, as the same row's old and
// new versions did when the identifier was the row's key.
func TestAsheFreshIdentifiersHideDifferences(t *testing.T) {
	_, c := newKeys(t)
	col := Column{Table: "sbtest1", Name: "k", Scheme: Ashe}
	c1, _ := c.AsheEncrypt(col, 7, 100)
	c2, _ := c.AsheEncrypt(col, 3007, 334)
	if uint64(c2)-uint64(c1) == 234 || uint64(c2)-uint64(c1) == 234*AsheOne {
		t.Error("ciphertexts under two identifiers differ by the plaintexts' difference")
	}
}

// Finding 2: the leakage statements say what a server learns about dense
// columns under ore (sbtest's id outright) and, for every scheme, over
// time; ashe no longer claims to reveal "nothing about the values".
func TestLeakageStatementsAreExact(t *testing.T) {
	english := locale.LeakageEnglish()
	got := map[Scheme]string{}
	for _, s := range Schemes {
		for _, part := range []string{"primitive", "reveals", "enables"} {
			if english[locale.LeakID(string(s), part)] == "" {
				t.Errorf("%s has no %s statement in the message catalogue", s, part)
			}
		}
		got[s] = english[locale.LeakID(string(s), "reveals")]
		if !strings.Contains(got[s], "Over time") {
			t.Errorf("%s says nothing about updates over time", s)
		}
	}
	stated := 0
	for id := range english {
		if slices.ContainsFunc(Schemes, func(s Scheme) bool { return strings.HasPrefix(id, "leak."+string(s)+".") }) {
			stated++
		}
	}
	if stated != 3*len(Schemes) {
		t.Errorf("the catalogue states %d leakage parts for %d schemes", stated, len(Schemes))
	}
	if s := got[Ore]; !strings.Contains(s, "sbtest's id is 1..N") || !strings.Contains(s, "reads every id exactly") {
		t.Errorf("ore understates order leakage on dense columns: %s", s)
	}
	if s := got[Ashe]; strings.HasPrefix(s, "nothing about the values") || !strings.Contains(s, "identifier") {
		t.Errorf("ashe: %s", s)
	}
	if s := got[OreDet]; !strings.Contains(s, "bound to no row") || !strings.Contains(s, "on trust") {
		t.Errorf("ore_det understates what an unbound copy allows: %s", s)
	}
	if s := got[RndColumn]; !strings.Contains(s, "bound to no row") || !strings.Contains(s, "another row") {
		t.Errorf("rnd_column understates what a value bound to no row allows: %s", s)
	}
	if len(got) != 6 {
		t.Errorf("leakage covers %d schemes", len(got))
	}
}

// A rnd_column value is bound to its column but to no row: it decrypts
// whatever row asks (the leak its statement names), and not as a rnd
// value of the same column, nor in another column.
func TestRndColumnIsBoundToItsColumnOnly(t *testing.T) {
	_, c := newKeys(t)
	col := Column{Table: "t", Name: "c", Scheme: RndColumn}
	ct, err := c.Encrypt(col, nil, Text("x"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c.Decrypt(col, []byte("any row"), ct); err != nil || v.S != "x" {
		t.Errorf("rnd_column in another row: %v %v", v, err)
	}
	if _, err := c.Decrypt(Column{Table: "t", Name: "c", Scheme: Rnd}, nil, ct); err == nil {
		t.Error("a rnd_column ciphertext opened as rnd")
	}
	if _, err := c.Decrypt(Column{Table: "t", Name: "d", Scheme: RndColumn}, nil, ct); err == nil {
		t.Error("a rnd_column ciphertext opened in another column")
	}
}
