package colenc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tink-crypto/tink-go/v2/aead"
	"github.com/tink-crypto/tink-go/v2/daead"
	"github.com/tink-crypto/tink-go/v2/insecurecleartextkeyset"
	"github.com/tink-crypto/tink-go/v2/keyset"
	"github.com/tink-crypto/tink-go/v2/tink"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
)

// keysetFormat names the keyset file's layout.
const keysetFormat = "encbench-colenc-keyset/v1"

// keysetAD binds the encrypted keysets to this use, so a keyset encrypted
// under the same master key for something else does not load here.
var keysetAD = []byte("encbench colenc keyset v1")

// keysetFile is the JSON on disk: two Tink keysets (AEAD for rnd columns,
// deterministic AEAD for det columns), each encrypted under the master key.
type keysetFile struct {
	Format string          `json:"format"`
	AEAD   json.RawMessage `json:"aead"`
	DAEAD  json.RawMessage `json:"daead"`
}

// Paths locate the master key and the keyset. An empty Keyset means
// DefaultKeysetName beside the master key, so the two travel together.
type Paths struct {
	MasterKey string
	Keyset    string
}

// DefaultKeysetName is the keyset's file name beside its master key.
const DefaultKeysetName = "encbench-keyset.json"

// Resolved fills the keyset's default path.
func (p Paths) Resolved() Paths {
	if p.Keyset == "" {
		p.Keyset = filepath.Join(filepath.Dir(p.MasterKey), DefaultKeysetName)
	}
	return p
}

// checkMode refuses key files others could read or replace: group or
// world permissions, a foreign owner, a directory others may write to.
func checkMode(path string) error {
	if err := fsx.CheckPrivate(path); err != nil {
		return errs.Usage("%w", err)
	}
	return nil
}

// masterKey loads the master key (a Tink AES-256-GCM keyset in cleartext,
// protected by its file mode), creating it when create is set and it is missing.
func masterKey(path string, create bool) (tink.AEAD, bool, error) {
	if path == "" {
		return nil, false, errs.Usage("no master key file: give --master-key-file or ENCBENCH_MASTER_KEY_FILE (there is no home directory to keep a default one in)")
	}
	created := false
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if !create {
			return nil, false, errs.Usage("master key file %s does not exist: run `encbench keys init` (or give --master-key-file / ENCBENCH_MASTER_KEY_FILE)", path)
		}
		h, err := keyset.NewHandle(aead.AES256GCMKeyTemplate())
		if err != nil {
			return nil, false, fmt.Errorf("making the master key: %w", err)
		}
		var buf bytes.Buffer
		if err := insecurecleartextkeyset.Write(h, keyset.NewJSONWriter(&buf)); err != nil {
			return nil, false, fmt.Errorf("encoding the master key: %w", err)
		}
		if err := writeNew(path, buf.Bytes()); err != nil {
			return nil, false, err
		}
		created = true
	} else if err != nil {
		return nil, false, fmt.Errorf("reading master key %s: %w", path, err)
	}
	if err := checkMode(path); err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("reading master key %s: %w", path, err)
	}
	h, err := insecurecleartextkeyset.Read(keyset.NewJSONReader(bytes.NewReader(data)))
	if err != nil {
		return nil, false, errs.Usage("%s is not an encbench master key (a Tink AES-256-GCM keyset): %w", path, err)
	}
	a, err := aead.New(h)
	if err != nil {
		return nil, false, errs.Usage("%s is not an AEAD master key: %w", path, err)
	}
	return a, created, nil
}

// writeNew creates a key file that must not exist yet, mode 0600 from the
// start, synced with its directory.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	return fsx.WriteNew(path, data, 0o600)
}

func encryptHandle(h *keyset.Handle, master tink.AEAD) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := h.WriteWithAssociatedData(keyset.NewJSONWriter(&buf), master, keysetAD); err != nil {
		return nil, fmt.Errorf("encrypting the keyset: %w", err)
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes())), nil
}

func decryptHandle(raw json.RawMessage, master tink.AEAD, path string) (*keyset.Handle, error) {
	h, err := keyset.ReadWithAssociatedData(keyset.NewJSONReader(bytes.NewReader(raw)), master, keysetAD)
	if err != nil {
		return nil, errs.Usage("cannot decrypt keyset %s with this master key: wrong master key or damaged keyset (%w)", path, err)
	}
	return h, nil
}

// Init creates the master key when it is missing and a new keyset; it
// refuses to overwrite an existing keyset.
func Init(p Paths) (createdMaster bool, err error) {
	p = p.Resolved()
	if _, err := os.Stat(p.Keyset); err == nil {
		return false, errs.Usage("keyset %s exists already: use `encbench keys rotate` to add a key, or remove it first", p.Keyset)
	}
	master, created, err := masterKey(p.MasterKey, true)
	if err != nil {
		return false, err
	}
	ha, err := keyset.NewHandle(aead.AES256GCMKeyTemplate())
	if err != nil {
		return created, fmt.Errorf("making the rnd key: %w", err)
	}
	hd, err := keyset.NewHandle(daead.AESSIVKeyTemplate())
	if err != nil {
		return created, fmt.Errorf("making the det key: %w", err)
	}
	data, err := marshal(ha, hd, master)
	if err != nil {
		return created, err
	}
	return created, writeNew(p.Keyset, data)
}

func marshal(ha, hd *keyset.Handle, master tink.AEAD) ([]byte, error) {
	ea, err := encryptHandle(ha, master)
	if err != nil {
		return nil, err
	}
	ed, err := encryptHandle(hd, master)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(keysetFile{Format: keysetFormat, AEAD: ea, DAEAD: ed}, "", "  ")
}

func load(p Paths) (ha, hd *keyset.Handle, master tink.AEAD, err error) {
	p = p.Resolved()
	master, _, err = masterKey(p.MasterKey, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := os.Stat(p.Keyset); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, errs.Usage("keyset %s does not exist: run `encbench keys init --keyset %s`", p.Keyset, p.Keyset)
	}
	if err := checkMode(p.Keyset); err != nil {
		return nil, nil, nil, err
	}
	data, err := os.ReadFile(p.Keyset)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading keyset: %w", err)
	}
	var f keysetFile
	if err := json.Unmarshal(data, &f); err != nil || f.Format != keysetFormat {
		return nil, nil, nil, errs.Usage("%s is not an encbench keyset (format %s)", p.Keyset, keysetFormat)
	}
	if ha, err = decryptHandle(f.AEAD, master, p.Keyset); err != nil {
		return nil, nil, nil, err
	}
	if hd, err = decryptHandle(f.DAEAD, master, p.Keyset); err != nil {
		return nil, nil, nil, err
	}
	return ha, hd, master, nil
}

// Rotate adds a new primary key to both keysets; older keys stay, so
// existing ciphertext still decrypts. A det column's new writes then differ
// from its old ciphertexts for equal values: re-encrypt such columns before
// relying on equality lookups.
func Rotate(p Paths) error {
	p = p.Resolved()
	// Two rotations at once would each add a key to what they read and the
	// later write would drop the other's key.
	unlock, err := fsx.Lock(p.Keyset + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	ha, hd, master, err := load(p)
	if err != nil {
		return err
	}
	rotate := func(h *keyset.Handle, add func(*keyset.Manager) (uint32, error)) (*keyset.Handle, error) {
		m := keyset.NewManagerFromHandle(h)
		id, err := add(m)
		if err != nil {
			return nil, fmt.Errorf("adding a key: %w", err)
		}
		if err := m.SetPrimary(id); err != nil {
			return nil, fmt.Errorf("making the new key primary: %w", err)
		}
		return m.Handle()
	}
	if ha, err = rotate(ha, func(m *keyset.Manager) (uint32, error) { return m.Add(aead.AES256GCMKeyTemplate()) }); err != nil {
		return err
	}
	if hd, err = rotate(hd, func(m *keyset.Manager) (uint32, error) { return m.Add(daead.AESSIVKeyTemplate()) }); err != nil {
		return err
	}
	data, err := marshal(ha, hd, master)
	if err != nil {
		return err
	}
	return fsx.WriteFile(p.Keyset, data, 0o600)
}

// KeyInfo describes one key without its material.
type KeyInfo struct {
	Scheme  Scheme
	ID      uint32
	Status  string
	Primary bool
	Type    string
}

// Show lists the keys of both keysets.
func Show(p Paths) ([]KeyInfo, error) {
	ha, hd, _, err := load(p)
	if err != nil {
		return nil, err
	}
	var out []KeyInfo
	for _, x := range []struct {
		s Scheme
		h *keyset.Handle
	}{{Rnd, ha}, {Det, hd}} {
		info := x.h.KeysetInfo()
		for _, k := range info.GetKeyInfo() {
			out = append(out, KeyInfo{Scheme: x.s, ID: k.GetKeyId(), Status: k.GetStatus().String(),
				Primary: k.GetKeyId() == info.GetPrimaryKeyId(), Type: k.GetTypeUrl()})
		}
	}
	return out, nil
}

// OpenForPrepare opens the keys, creating both files on first use (neither
// exists). With only one of them present it fails: a lost keyset or master
// key must not be silently replaced, or older ciphertext would be orphaned.
func OpenForPrepare(p Paths) (c *Cipher, created bool, err error) {
	p = p.Resolved()
	_, errM := os.Stat(p.MasterKey)
	_, errK := os.Stat(p.Keyset)
	noM, noK := errors.Is(errM, fs.ErrNotExist), errors.Is(errK, fs.ErrNotExist)
	switch {
	case noM && noK:
		if _, err := Init(p); err != nil {
			return nil, false, err
		}
		created = true
	case noM:
		return nil, false, errs.Usage("the keyset %s exists but its master key file %s does not: give the master key it was made with (--master-key-file or ENCBENCH_MASTER_KEY_FILE), or another --keyset", p.Keyset, p.MasterKey)
	case noK:
		return nil, false, errs.Usage("the master key file %s exists but the keyset %s does not: give the keyset made with it (--keyset), or run `encbench keys init` for a new one", p.MasterKey, p.Keyset)
	}
	c, err = Open(p)
	return c, created, err
}
