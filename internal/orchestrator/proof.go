package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/workload"
)

// settleTimeout bounds the wait for background encryption to finish before
// a TDE run is measured.
const settleTimeout = 120 * time.Second

// proveAtRest checks from the server that the workload's tables are stored
// as the variant says (encrypted or not), waiting for background key
// rotation, and for sandboxes scans raw files for prepare's marker.
func proveAtRest(ctx context.Context, t engine.Target, c engine.Conn, wl workload.Workload, sb *sandbox.Info, expect bool) (*result.TDEProof, error) {
	ar, ok := t.Engine.(engine.AtRest)
	if !ok {
		if expect {
			return nil, fmt.Errorf("%s servers cannot encrypt at rest", t.Engine.Kind())
		}
		return nil, nil
	}
	d := t.Engine.Dialect()
	tables := wl.Tables()
	canary, err := workload.ReadMarker(ctx, c, d)
	if err != nil {
		return nil, err
	}
	if canary != "" {
		tables = append(tables, workload.MarkerTable)
	}
	deadline := time.Now().Add(settleTimeout)
	var state map[string]engine.TableTDE
	for {
		if state, err = ar.TDEState(ctx, c, tables); err != nil {
			return nil, err
		}
		settling := false
		for _, s := range state {
			settling = settling || s.Settling
		}
		if !settling || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	p := &result.TDEProof{Source: ar.TDESource(), Expected: expect, Tables: len(tables), Detail: map[string]string{}}
	var wrong []string
	for _, name := range tables {
		s := state[name]
		p.Detail[name] = s.Detail
		if s.Encrypted {
			p.Encrypted++
		}
		if s.Encrypted != expect || s.Settling {
			wrong = append(wrong, fmt.Sprintf("%s (%s)", name, s.Detail))
		}
	}
	if sb == nil && expect {
		// A server of the user's: its catalog proves the tables, and
		// the rest follows its global settings, which the report names.
		p.Scope = "tables"
		if g, ok := t.Engine.(engine.AtRestSettings); ok {
			if p.ServerSettings, err = g.GlobalAtRest(ctx, c); err != nil {
				return p, err
			}
		}
	}
	if sb != nil && len(sb.MarkerFiles) > 0 && canary != "" {
		if p.Marker, err = scanMarker(sb.MarkerFiles, canary, !expect); err != nil {
			return p, err
		}
		if expect && p.Marker.Occurrences > 0 {
			wrong = append(wrong, fmt.Sprintf("the marker appears %d times in the raw files", p.Marker.Occurrences))
		}
		if !expect && p.Marker.Occurrences == 0 {
			wrong = append(wrong, "the marker is missing from the raw files of a plaintext server, so the check cannot tell")
		}
	}
	if len(wrong) > 0 {
		sort.Strings(wrong)
		state := "encrypted"
		if !expect {
			state = "plaintext"
		}
		return p, fmt.Errorf("encryption at rest not proven: expected %s tables, but %s", state, strings.Join(wrong, "; "))
	}
	return p, nil
}

// scanMarker counts the canary in the raw files. Proving encryption needs
// every file read; proving plaintext needs one sighting, so with
// untilFound it stops at the first file that shows the marker (the table's
// own file comes first; the redo log, hundreds of MB, is read only when
// the table's pages have not reached disk yet).
func scanMarker(files []string, canary string, untilFound bool) (*result.MarkerProof, error) {
	m := &result.MarkerProof{Files: map[string]int{}}
	needle := []byte(canary)
	buf := make([]byte, markerChunk+len(needle))
	for _, f := range files {
		n, err := countInFile(f, needle, buf)
		if err != nil {
			return m, fmt.Errorf("reading %s for the marker check (run as root or the server's user): %w", f, err)
		}
		m.Files[filepath.Base(f)] = n
		m.Occurrences += n
		if untilFound && n > 0 {
			break
		}
	}
	return m, nil
}

// markerChunk is how much of a raw file the marker scan holds at once: the
// files include a redo log of hundreds of MB, which reading whole would
// cost the client that much memory and its page faults just before it
// measures.
const markerChunk = 4 << 20

// countInFile counts needle in the file, reading it in chunks through buf
// and carrying len(needle)-1 bytes between chunks so no match is split.
func countInFile(path string, needle, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return fsx.CountIn(f, needle, buf)
}

// regime reads data set size and buffer cache size from the server.
func regime(ctx context.Context, t engine.Target, c engine.Conn, wl workload.Workload) *result.Regime {
	sz, ok := t.Engine.(engine.Sizer)
	if !ok {
		return nil
	}
	data, err1 := sz.DataBytes(ctx, c, wl.Tables())
	pool, err2 := sz.BufferPoolBytes(ctx, c)
	if err1 != nil || err2 != nil || pool == 0 {
		return nil
	}
	ratio := float64(data) / float64(pool)
	return &result.Regime{DataBytes: data, BufferPoolBytes: pool, Ratio: float64(int(ratio*1000)) / 1000, IOBound: ratio > 1}
}
