package fscrypt

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/encbench/encbench/internal/fsx"
)

// masterKeySize is the raw key added to the file system: 64 bytes, as
// long as AES-256-XTS's key (fscrypt.rst, "Master keys").
const masterKeySize = 64

// ioctl calls an fscrypt ioctl on the directory at path with arg.
func ioctl(path string, req uintptr, arg unsafe.Pointer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// addKey adds a fresh random master key to the file system mounted at mnt
// (FS_IOC_ADD_ENCRYPTION_KEY); the kernel names it by its identifier.
func addKey(mnt string) (string, error) {
	head := int(unsafe.Sizeof(unix.FscryptAddKeyArg{}))
	buf := make([]byte, head+masterKeySize)
	arg := (*unix.FscryptAddKeyArg)(unsafe.Pointer(&buf[0]))
	arg.Key_spec.Type = unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	arg.Raw_size = masterKeySize
	if _, err := rand.Read(buf[head:]); err != nil {
		return "", fmt.Errorf("drawing the master key: %w", err)
	}
	err := ioctl(mnt, unix.FS_IOC_ADD_ENCRYPTION_KEY, unsafe.Pointer(&buf[0]))
	id := hex.EncodeToString(arg.Key_spec.U[:unix.FSCRYPT_KEY_IDENTIFIER_SIZE])
	clear(buf[head:])
	if err != nil {
		return "", fmt.Errorf("adding the key to %s (FS_IOC_ADD_ENCRYPTION_KEY; does the kernel have CONFIG_FS_ENCRYPTION?): %w", mnt, err)
	}
	return id, nil
}

func removeKey(mnt, id string) error {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != unix.FSCRYPT_KEY_IDENTIFIER_SIZE {
		return fmt.Errorf("fscrypt: key identifier %q", id)
	}
	var arg unix.FscryptRemoveKeyArg
	arg.Key_spec.Type = unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	copy(arg.Key_spec.U[:], raw)
	if err := ioctl(mnt, unix.FS_IOC_REMOVE_ENCRYPTION_KEY, unsafe.Pointer(&arg)); err != nil {
		return fmt.Errorf("fscrypt: removing the key from %s: %w", mnt, err)
	}
	return nil
}

// setPolicy gives the empty directory dir a v2 policy under key id:
// AES-256-XTS for contents, AES-256-CTS for names, names padded to 32.
func setPolicy(dir, id string) error {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return err
	}
	p := unix.FscryptPolicyV2{Version: unix.FSCRYPT_POLICY_V2, Contents_encryption_mode: unix.FSCRYPT_MODE_AES_256_XTS,
		Filenames_encryption_mode: unix.FSCRYPT_MODE_AES_256_CTS, Flags: unix.FSCRYPT_POLICY_FLAGS_PAD_32}
	copy(p.Master_key_identifier[:], raw)
	if err := ioctl(dir, unix.FS_IOC_SET_ENCRYPTION_POLICY, unsafe.Pointer(&p)); err != nil {
		return fmt.Errorf("setting the policy on %s (FS_IOC_SET_ENCRYPTION_POLICY): %w", dir, err)
	}
	return nil
}

// policy is a directory's policy as the kernel reports it.
type policy struct {
	version, contents, filenames, flags uint8
	key                                 string
}

var modeNames = map[uint8]string{1: "AES-256-XTS", 4: "AES-256-CTS", 5: "AES-128-CBC", 6: "AES-128-CTS", 9: "Adiantum", 10: "AES-256-HCTR2"}

func (p policy) String() string {
	return fmt.Sprintf("v%d, contents %s, names %s, key %s", p.version, modeNames[p.contents], modeNames[p.filenames], p.key)
}

// readPolicy reads dir's policy (FS_IOC_GET_ENCRYPTION_POLICY_EX); an
// error when it has none (ENODATA) or the file system has no encryption.
func readPolicy(dir string) (policy, error) {
	arg := unix.FscryptGetPolicyExArg{Size: uint64(len(unix.FscryptGetPolicyExArg{}.Policy))}
	if err := ioctl(dir, unix.FS_IOC_GET_ENCRYPTION_POLICY_EX, unsafe.Pointer(&arg)); err != nil {
		if errors.Is(err, unix.ENODATA) {
			return policy{}, errors.New("no fscrypt policy")
		}
		return policy{}, fmt.Errorf("reading its fscrypt policy: %w", err)
	}
	b := arg.Policy
	p := policy{version: b[0], contents: b[1], filenames: b[2], flags: b[3]}
	if p.version == unix.FSCRYPT_POLICY_V2 {
		p.key = hex.EncodeToString(b[8:24])
	}
	if p.version != unix.FSCRYPT_POLICY_V2 || p.contents != unix.FSCRYPT_MODE_AES_256_XTS {
		return p, fmt.Errorf("its policy is %s, not v2 with AES-256-XTS contents", p)
	}
	return p, nil
}

// markerInImage counts the marker in the raw image, once per marker: the
// kernel's buffers are written out first (syncfs), and the count is kept
// beside the image, since the data of a sandbox's marker does not change
// and reading gigabytes before every run would cost more than the run.
func markerInImage(mnt, image, marker string) (int, error) {
	cache := image + ".marker.json"
	var kept struct {
		Marker string `json:"marker"`
		Count  int    `json:"count"`
	}
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &kept) == nil && kept.Marker == marker {
		return kept.Count, nil
	}
	if f, err := os.Open(mnt); err == nil {
		_ = unix.Syncfs(int(f.Fd()))
		f.Close()
	}
	n, err := countInFile(image, []byte(marker))
	if err != nil {
		return 0, fmt.Errorf("reading the raw image for the marker: %w", err)
	}
	kept.Marker, kept.Count = marker, n
	if b, err := json.Marshal(kept); err == nil {
		_ = os.WriteFile(cache, b, 0o600)
	}
	return n, nil
}

// countInFile counts needle in the file's data (its holes skipped: the
// image is sparse), in chunks that carry len(needle)-1 bytes over.
func countInFile(path string, needle []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	const chunk = 4 << 20
	buf := make([]byte, chunk+len(needle))
	count := 0
	var off int64
	for {
		data, err := unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
		if err != nil {
			if errors.Is(err, unix.ENXIO) {
				return count, nil // no data past off
			}
			return count, err
		}
		hole, err := unix.Seek(int(f.Fd()), data, unix.SEEK_HOLE)
		if err != nil {
			return count, err
		}
		n, err := fsx.CountIn(io.NewSectionReader(f, data, hole-data), needle, buf)
		count += n
		if err != nil {
			return count, err
		}
		off = hole
	}
}
