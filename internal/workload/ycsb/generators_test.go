package ycsb

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// fnvHash64 is FNV-1a over the little-endian bytes (then made positive):
// check it against the standard library's FNV-1a.
func TestFNVHashMatchesFNV1a(t *testing.T) {
	for _, v := range []int64{0, 1, 2, 1000, 123456789, -5} {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := fnvHash64(v); got != want {
			t.Errorf("fnvHash64(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestZipfianSkew(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	z := newZipfian(0, 999, zipfianConstant, 0)
	counts := make([]int, 1000)
	const n = 200000
	for i := 0; i < n; i++ {
		v := z.next(r)
		if v < 0 || v > 999 {
			t.Fatalf("out of range: %d", v)
		}
		counts[v]++
	}
	// With theta 0.99 over 1000 items, item 0 takes about 13% of draws and
	// each item is more popular than one ten times further down.
	if share := float64(counts[0]) / n; share < 0.10 || share > 0.16 {
		t.Errorf("item 0 share %.3f, want about 0.13", share)
	}
	if !(counts[0] > counts[9] && counts[9] > counts[99] && counts[99] > counts[999]) {
		t.Errorf("not decreasing: %d %d %d %d", counts[0], counts[9], counts[99], counts[999])
	}
}

func TestScrambledZipfianSpreadsHotKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := newScrambledZipfian(0, 9999)
	counts := map[int64]int{}
	for i := 0; i < 100000; i++ {
		v := s.next(r)
		if v < 0 || v > 9999 {
			t.Fatalf("out of range: %d", v)
		}
		counts[v]++
	}
	hottest, best := int64(-1), 0
	for k, c := range counts {
		if c > best {
			hottest, best = k, c
		}
	}
	if hottest == 0 || best < 1000 {
		t.Errorf("hottest key %d with %d draws: want a skewed, scrambled hot key", hottest, best)
	}
}

func TestLatestPrefersRecentInserts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var c counter
	c.init(1000)
	l := latest{c: &c, z: newZipfian(0, 999, zipfianConstant, 0)}
	recent := 0
	for i := 0; i < 10000; i++ {
		v := l.next(r)
		if v < 0 || v > 999 {
			t.Fatalf("out of range: %d", v)
		}
		if v >= 990 {
			recent++
		}
	}
	if recent < 3000 {
		t.Errorf("only %d of 10000 draws among the 10 newest records", recent)
	}
}

// Generators stride the insert keys: I of N takes start + k*N + I.
func TestCounterPartitionsInsertKeys(t *testing.T) {
	seen := map[int64]bool{}
	for i := int64(0); i < 3; i++ {
		c := counter{index: i, stride: 3}
		c.init(100)
		if c.last() != 99 {
			t.Errorf("before any insert, last is %d, want the loaded 99", c.last())
		}
		for k := 0; k < 50; k++ {
			n := c.take()
			if seen[n] || n < 100 || n%3 != (100+i)%3 {
				t.Fatalf("generator %d took %d", i, n)
			}
			seen[n] = true
		}
		if c.last() != 100+49*3+i {
			t.Errorf("last %d", c.last())
		}
	}
}
