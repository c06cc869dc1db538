package colenc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
)

// countsFile is a private JSON map of counters kept beside the keyset (the
// ashe ledger, the rnd keys' uses): read and replaced under a lock, mode
// 0600, synced before an update returns.
type countsFile struct {
	path string
	// what the file is, for an error about its content.
	what string
}

// read loads the counters; a missing file holds none.
func (f countsFile) read() (map[string]uint64, error) {
	counts := map[string]uint64{}
	if err := fsx.CheckPrivate(f.path); errors.Is(err, fs.ErrNotExist) {
		return counts, nil
	} else if err != nil {
		return nil, errs.Usage("%w", err)
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if err := json.Unmarshal(data, &counts); err != nil {
		return nil, fmt.Errorf("%s is not %s: %w", f.path, f.what, err)
	}
	return counts, nil
}

// update changes the counters under the file's lock; change says whether
// it changed them (only then is the file written).
func (f countsFile) update(change func(counts map[string]uint64) (bool, error)) error {
	unlock, err := fsx.Lock(f.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	counts, err := f.read()
	if err != nil {
		return err
	}
	changed, err := change(counts)
	if err != nil || !changed {
		return err
	}
	data, err := json.MarshalIndent(counts, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", f.path, err)
	}
	return fsx.WriteFile(f.path, data, 0o600)
}
