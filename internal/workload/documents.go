package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// OwnedCollection records, in a document store, the collections encbench
// created (the counterpart of OwnershipTable).
const OwnedCollection = "encbench_owned"

type ownedDoc struct {
	ID        string `bson:"_id"`
	Workload  string `bson:"workload"`
	CreatedAt string `bson:"created_at"`
}

// CheckPrepareDocs refuses to overwrite collections encbench did not create
// and, with force or for its own, drops them first.
func CheckPrepareDocs(ctx context.Context, d engine.Documents, want []string, force bool) error {
	existing, err := d.Collections(ctx)
	if err != nil {
		return err
	}
	var foreign, mine []string
	for _, name := range want {
		if !slices.Contains(existing, name) {
			continue
		}
		owned, err := d.FindByID(ctx, OwnedCollection, name)
		if err != nil {
			return fmt.Errorf("reading %s: %w", OwnedCollection, err)
		}
		if owned {
			mine = append(mine, name)
		} else {
			foreign = append(foreign, name)
		}
	}
	if !force && len(foreign) > 0 {
		return errs.Usage("refusing to prepare: collection(s) %s exist and were not created by encbench; use another database or pass --force to replace them", strings.Join(foreign, ", "))
	}
	if !force && len(mine) > 0 {
		return errs.Usage("collection(s) %s are already prepared: run cleanup first, or pass --force to recreate them", strings.Join(mine, ", "))
	}
	for _, name := range append(mine, foreign...) {
		if err := d.Drop(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// OwnDocs records collections as created by encbench for workload.
func OwnDocs(ctx context.Context, d engine.Documents, workloadName string, names []string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	docs := make([]any, 0, len(names))
	for _, n := range names {
		if owned, err := d.FindByID(ctx, OwnedCollection, n); err != nil {
			return err
		} else if owned {
			continue
		}
		docs = append(docs, ownedDoc{ID: n, Workload: workloadName, CreatedAt: now})
	}
	if len(docs) == 0 {
		return nil
	}
	return d.InsertMany(ctx, OwnedCollection, docs)
}

// DropOwnedDocs drops the named collections encbench created and returns
// those it left alone.
func DropOwnedDocs(ctx context.Context, d engine.Documents, names []string, log func(string)) ([]string, error) {
	existing, err := d.Collections(ctx)
	if err != nil {
		return nil, err
	}
	var skipped []string
	for _, n := range names {
		if !slices.Contains(existing, n) {
			continue
		}
		owned, err := d.FindByID(ctx, OwnedCollection, n)
		if err != nil {
			return skipped, err
		}
		if !owned {
			skipped = append(skipped, n)
			continue
		}
		log(fmt.Sprintf("Dropping collection '%s'...", n))
		if err := d.Drop(ctx, n); err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}
