package workload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/engine"
)

// MarkerTable holds a random canary string that prepare writes, stored like
// the benchmark tables. A TDE proof looks for it in the server's raw files:
// absent when the data is encrypted, present when it is not.
const MarkerTable = "encbench_marker"

const markerRows = 1000

// WriteMarker (re)creates the marker table with tableSuffix (engine and
// encryption options) and returns its canary.
func WriteMarker(ctx context.Context, c engine.Conn, d engine.Dialect, tableSuffix string) (string, error) {
	raw := make([]byte, 12)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("making the marker: %w", err)
	}
	canary := "encbench-marker-" + hex.EncodeToString(raw)
	if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+MarkerTable); err != nil {
		return "", fmt.Errorf("dropping %s: %w", MarkerTable, err)
	}
	if err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id INTEGER NOT NULL PRIMARY KEY, note VARCHAR(64) NOT NULL) %s", MarkerTable, tableSuffix)); err != nil {
		return "", fmt.Errorf("creating %s: %w", MarkerTable, err)
	}
	if err := Own(ctx, c, "marker", []string{MarkerTable}); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + MarkerTable + " VALUES ")
	for i := 1; i <= markerRows; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d, '%s')", i, canary)
	}
	if err := c.Exec(ctx, b.String()); err != nil {
		return "", fmt.Errorf("writing the marker: %w", err)
	}
	return canary, nil
}

// ReadMarker returns the canary prepare wrote, or "" when there is none.
func ReadMarker(ctx context.Context, c engine.Conn, d engine.Dialect) (string, error) {
	tables, err := Tables(ctx, c, d)
	if err != nil || !tables[MarkerTable] {
		return "", err
	}
	rows, err := c.Query(ctx, "SELECT note FROM "+MarkerTable+" WHERE id = 1")
	if err != nil {
		return "", fmt.Errorf("reading the marker: %w", err)
	}
	if len(rows) != 1 {
		return "", nil
	}
	return rows[0][0], nil
}
