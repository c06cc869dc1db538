package fscrypt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/encbench/encbench/internal/layer"
)

// The marker is counted across the chunks of a sparse file, in its data
// and never in its holes, and a split occurrence is not lost.
func TestCountInSparseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	needle := []byte("encbench-marker-0123456789")
	// One at the start, one across the 4 MiB chunk boundary, one after a
	// 64 MiB hole.
	for _, off := range []int64{0, 4<<20 - 10, 68 << 20} {
		if _, err := f.WriteAt(needle, off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(200 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	n, err := countInFile(path, needle)
	if err != nil || n != 3 {
		t.Fatalf("counted %d (%v), want 3", n, err)
	}
}

func TestOptions(t *testing.T) {
	for opts, ok := range map[string]bool{"4G": true, "512M": true, "10M": false, "big": false} {
		if err := (Layer{}).Check(map[string]string{"size": opts}); (err == nil) != ok {
			t.Errorf("size=%s: %v", opts, err)
		}
	}
	if (Layer{}).Check(map[string]string{"dir": "/x", "policy": "none"}) == nil {
		t.Error("dir= with policy=none was taken: the user's directory is encrypted")
	}
	a, _ := Layer{}.Open(layerSpec(map[string]string{"policy": "none"}), "postgres")
	if a.Leakage() != "" {
		t.Error("the unencrypted baseline states a leakage")
	}
}

func layerSpec(o map[string]string) layer.Spec { return layer.Spec{Layer: "fscrypt", Options: o} }
