package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/sandbox"
)

// TestFileSystemEncryption starts a sandbox of each engine on an fscrypt
// image and one on the same kind of image without a policy, prepares and
// runs on each, and reads the raw images itself: prepare's marker must be
// absent from the encrypted one and present in the baseline's; the runs'
// proofs must say the same. Stopping a sandbox unmounts its image.
func TestFileSystemEncryption(t *testing.T) {
	servers(t)
	if os.Geteuid() != 0 {
		t.Skip("fscrypt sandboxes mount loop devices, which needs root")
	}
	for _, engine := range []string{"postgres", "mariadb"} {
		for _, v := range []string{"fscrypt:size=512M", "fscrypt:policy=none,size=512M"} {
			t.Run(engine+"/"+v, func(t *testing.T) {
				parent, err := os.MkdirTemp(fx.dir, "fscrypt-")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(parent, 0o755); err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(parent, "sb")
				info, err := sandbox.Up(t.Context(), sandbox.Options{Engine: engine, Dir: dir, Variant: v, BufferPool: "64M"})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if err := sandbox.Down(dir); err != nil {
						t.Error(err)
					}
					if _, err := os.Stat(filepath.Join(dir, "fs", "data")); err == nil {
						t.Error("the image is still mounted after the sandbox stopped")
					}
				})
				data := []string{"--sandbox", info.Dir, "--tables", "1", "--table-size", "500"}
				mustRun(t, append([]string{"prepare", "oltp_point_select", "--variant", v}, data...)...)
				r := runJSON(t, append([]string{"oltp_point_select", "--variant", v, "--time", "1"}, data...)...)
				if len(r.Variant.Verified.Layers) != 1 {
					t.Fatalf("proofs: %+v", r.Variant.Verified.Layers)
				}
				p := r.Variant.Verified.Layers[0]
				if p.Checked != 2 || p.Proven != 2 {
					t.Errorf("proof: %+v", p)
				}
				marker := s0(t, info, "SELECT note FROM encbench_marker WHERE id = 1")
				raw, err := os.ReadFile(filepath.Join(dir, "fscrypt.img"))
				if err != nil {
					t.Fatal(err)
				}
				found := bytes.Contains(raw, []byte(marker))
				if encrypted := v == "fscrypt:size=512M"; found == encrypted {
					t.Errorf("marker %q in the raw image: %v, with the policy: %v", marker, found, encrypted)
				}
			})
		}
	}
}

// s0 reads one value through the sandbox's benchmark account.
func s0(t *testing.T, info *sandbox.Info, sql string) string {
	t.Helper()
	target, err := engine.ParseTarget(info.DSN, engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		t.Fatal(err)
	}
	c, err := target.Engine.Connect(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := adminRows(t, c, sql)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %v", sql, rows)
	}
	return rows[0][0]
}
