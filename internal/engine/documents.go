package engine

import "context"

// Documents is a connection to a document store (MongoDB). Workloads that
// run there use it instead of SQL.
type Documents interface {
	Collections(ctx context.Context) ([]string, error)
	Drop(ctx context.Context, collection string) error
	InsertMany(ctx context.Context, collection string, docs []any) error
	// FindByID reads the document with _id = id and says whether it exists.
	FindByID(ctx context.Context, collection string, id any) (bool, error)
	// UpdateByID sets fields of the document with _id = id.
	UpdateByID(ctx context.Context, collection string, id any, set map[string]any) error
	InsertOne(ctx context.Context, collection string, doc any) error
	Count(ctx context.Context, collection string) (int64, error)
	// ScanFrom reads up to n documents with _id >= start in _id order and
	// returns how many it read.
	ScanFrom(ctx context.Context, collection string, start any, n int) (int, error)
}
