// Package fscrypt is encryption at rest below the database, as teams on
// community PostgreSQL get it (it has no TDE; they use LUKS, a cloud
// volume's encryption or the file system's): the sandbox's data directory
// lives on an ext4 image on a loop device, in a directory with a Linux
// fscrypt policy (version 2, AES-256-XTS for contents, AES-256-CTS for
// names; the kernel's Documentation/filesystems/fscrypt.rst). The
// baseline, fscrypt:policy=none, is the same kind of image without a
// policy, so the difference between the two is the encryption alone.
//
// Mounting needs root. Without it, fscrypt:dir=PATH names a directory on
// a file system the user encrypted themselves; the sandbox's data goes in
// a new directory inside it, and the proof reads its policy.
package fscrypt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

func init() { layer.Register(Layer{}) }

// Layer describes file-system encryption at rest.
type Layer struct{}

func (Layer) Name() string { return "fscrypt" }
func (Layer) Summary() string {
	return "file-system encryption at rest below the server: the sandbox's data directory on an ext4 image (loop device) with an fscrypt policy, AES-256-XTS contents; policy=none is the same image unencrypted, the baseline that isolates the encryption"
}
func (Layer) Where() layer.Where { return layer.AtRest }
func (Layer) Options() []layer.Option {
	return []layer.Option{
		{Key: "policy", Values: []string{"v2", "none"}, Help: "v2: an fscrypt v2 policy, AES-256-XTS contents and AES-256-CTS names (default); none: the same image without one (the baseline)"},
		{Key: "size", Help: "the image's size, such as 4G (sparse; default 4G): room for the data set, its logs and WAL"},
		{Key: "dir", Help: "a directory on a file system you encrypted with fscrypt yourself (no root needed): the data goes in a new directory inside it; for a DSN target, the server's data directory on this machine, whose policy the proof reads"},
	}
}
func (Layer) Aliases() []layer.Alias { return nil }
func (Layer) Engines() []string      { return []string{"postgres", "mariadb"} }
func (Layer) Check(opts map[string]string) error {
	if opts["dir"] != "" && (opts["size"] != "" || opts["policy"] == "none") {
		return errors.New("dir= is a directory you encrypted yourself: it takes neither size= nor policy=none")
	}
	if s := opts["size"]; s != "" {
		if _, err := parseSize(s); err != nil {
			return err
		}
	}
	return nil
}

// OnServer: the server's files change, so it runs on a sandbox of its own.
func (Layer) OnServer() bool { return true }

// Open: the same on every engine.
func (Layer) Open(s layer.Spec, engineKind string) (layer.Active, error) {
	size := int64(4 << 30)
	if v := s.Options["size"]; v != "" {
		size, _ = parseSize(v)
	}
	return &active{spec: s, encrypt: s.Options["policy"] != "none", dir: s.Options["dir"], size: size}, nil
}

type active struct {
	spec    layer.Spec
	encrypt bool
	dir     string
	size    int64
}

func (a *active) Spec() layer.Spec { return a.spec }

func (a *active) Leakage() string {
	if !a.encrypt {
		return ""
	}
	return "fscrypt"
}

// Require: a sandbox set it up when it started; a server of the user's
// is proven through the data directory it names.
func (a *active) Require(ctx context.Context, env layer.Env) error {
	if !env.Sandbox && a.dir == "" {
		return errs.Usage("fscrypt on a server of yours: give fscrypt:dir=PATH, its data directory on this machine, whose fscrypt policy the run reads (encbench mounts images only for its sandboxes)")
	}
	if env.Sandbox && env.DataDir == "" {
		return errs.Usage("this sandbox was not started with fscrypt: start one with encbench sandbox up --variant %s", a.spec)
	}
	return nil
}

// SetUp mounts a new image at dir/fs and makes dir/fs/data, with the
// policy, the data directory; or, with dir=, a new directory inside the
// user's encrypted one.
func (a *active) SetUp(ctx context.Context, dir string) (string, map[string]string, error) {
	if a.dir != "" {
		data := filepath.Join(a.dir, "encbench-"+filepath.Base(dir))
		if _, err := readPolicy(a.dir); err != nil {
			return "", nil, errs.Usage("fscrypt:dir=%s: %v", a.dir, err)
		}
		if err := os.Mkdir(data, 0o700); err != nil {
			return "", nil, fmt.Errorf("fscrypt: creating the data directory in %s: %w", a.dir, err)
		}
		return data, map[string]string{}, nil
	}
	if os.Geteuid() != 0 {
		return "", nil, errs.Usage("fscrypt mounts an ext4 image on a loop device, which needs root: run as root, or give fscrypt:dir=PATH, a directory on a file system you encrypted with fscrypt yourself")
	}
	image, mnt := filepath.Join(dir, "fscrypt.img"), filepath.Join(dir, "fs")
	state := map[string]string{"image": image, "mount": mnt}
	if err := makeImage(ctx, image, a.size); err != nil {
		return "", nil, err
	}
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return "", nil, fmt.Errorf("fscrypt: %w", err)
	}
	if out, err := exec.CommandContext(ctx, "mount", "-o", "loop", image, mnt).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("fscrypt: mounting %s (a loop device): %v: %s", image, err, strings.TrimSpace(string(out)))
	}
	data := filepath.Join(mnt, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		_ = unmount(mnt)
		return "", nil, fmt.Errorf("fscrypt: %w", err)
	}
	if a.encrypt {
		id, err := addKey(mnt)
		if err == nil {
			state["key"] = id
			err = setPolicy(data, id)
		}
		if err != nil {
			_ = a.TearDown(state)
			return "", nil, fmt.Errorf("fscrypt: %w", err)
		}
	}
	return data, state, nil
}

// TearDown removes the key from the kernel (the files are then locked)
// and unmounts the image; the image stays, as a sandbox's data does.
func (a *active) TearDown(state map[string]string) error {
	var errList []error
	if id := state["key"]; id != "" {
		errList = append(errList, removeKey(state["mount"], id))
	}
	if m := state["mount"]; m != "" {
		errList = append(errList, unmount(m))
	}
	return errors.Join(errList...)
}

func makeImage(ctx context.Context, image string, size int64) error {
	f, err := os.OpenFile(image, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("fscrypt: creating the image: %w", err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fscrypt: sizing the image: %w", err)
	}
	// -O encrypt: the file system accepts fscrypt policies.
	out, err := exec.CommandContext(ctx, "mkfs.ext4", "-q", "-F", "-O", "encrypt", image).CombinedOutput()
	if err != nil {
		return fmt.Errorf("fscrypt: mkfs.ext4 -O encrypt (e2fsprogs): %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func unmount(mnt string) error {
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		return fmt.Errorf("fscrypt: unmounting %s: %v: %s", mnt, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 || n*mult < 64<<20 {
		return 0, fmt.Errorf("size=%s: give a size of 64M or more, such as 4G or 512M", s)
	}
	return n * mult, nil
}

// Prove reads the data directory's policy back from the kernel and, on a
// sandbox's image, counts prepare's marker in the raw image: absent under
// a policy, present without one (else the check could not tell).
func (a *active) Prove(ctx context.Context, env layer.Env) (proof.LayerProof, error) {
	dir := env.DataDir
	if dir == "" {
		dir = a.dir
	}
	out := proof.LayerProof{Source: "FS_IOC_GET_ENCRYPTION_POLICY_EX on the data directory", Facts: map[string]string{}}
	pol, err := readPolicy(dir)
	switch {
	case a.encrypt && err != nil:
		return out, fmt.Errorf("the data directory %s has no fscrypt policy: %w", dir, err)
	case !a.encrypt && err == nil:
		return out, fmt.Errorf("the baseline's data directory %s has an fscrypt policy (%s)", dir, pol)
	}
	out.Checked, out.Proven = 1, 1
	out.Facts["policy"] = "none"
	if a.encrypt {
		out.Facts["policy"] = pol.String()
	}
	image := filepath.Join(filepath.Dir(env.DataDir), "fscrypt.img")
	if env.DataDir == "" || env.Marker == "" {
		return out, nil
	}
	if _, err := os.Stat(image); err != nil {
		if env.Sandbox && a.dir == "" {
			return out, fmt.Errorf("the sandbox's data is not on an fscrypt image (%s is missing): start the sandbox with --variant %s", image, a.spec)
		}
		return out, nil // a directory of the user's: no image to read
	}
	n, err := markerInImage(filepath.Join(filepath.Dir(env.DataDir), "fs"), image, env.Marker)
	if err != nil {
		return out, err
	}
	out.Facts["marker in raw image"] = fmt.Sprint(n)
	switch {
	case a.encrypt && n > 0:
		return out, fmt.Errorf("prepare's marker appears %d times in the raw image %s: its files are not all encrypted", n, image)
	case a.encrypt || n > 0:
		// Absent under the policy; present without it, which shows the
		// scan sees the server's files.
		out.Source += "; the marker row in the raw image"
		out.Checked++
		out.Proven++
	default:
		// The baseline's image without the marker: another layer above
		// (the server's TDE) encrypts the files, so this check cannot
		// tell and is not counted; the policy read back still is.
		out.Facts["marker in raw image"] = "0 (the server's files are encrypted above the file system, so the image cannot show it)"
	}
	return out, nil
}
