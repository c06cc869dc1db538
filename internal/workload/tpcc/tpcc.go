// Package tpcc is the TPC-C workload (TPC-C 5.11): nine tables, a parallel
// loader, the five transactions in the 45/43/4/4/4 mix, the consistency
// conditions, and client-side column encryption of 20%, 50% or 100% of the
// business columns as report R3 measured it.
package tpcc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

func init() { workload.Register(Family{}) }

// Options are the workload's flags.
type Options struct {
	Warehouses int    `json:"warehouses"`
	Level      int    `json:"encrypt_columns"`
	Isolation  string `json:"isolation"`
	ThinkTime  bool   `json:"keying_and_think_time"`
	// RetryInput is what a transaction a conflict rolled back is tried
	// again with: the same input (pgbench's --max-tries) or new input of
	// the same type (OLTPBench's worker).
	RetryInput string `json:"retry_input"`
	Keys       colenc.Paths
}

const (
	retrySame = "same"
	retryNew  = "new"
)

// Family is TPC-C, one workload.
type Family struct{}

const name = "tpcc"

func (Family) Name() string { return name }

func (Family) Workloads() map[string]string {
	return map[string]string{name: "TPC-C: NewOrder 45%, Payment 43%, OrderStatus, Delivery, StockLevel 4% each; tpmC; --encrypt-columns 0|20|50|100"}
}

func (Family) NewOptions() workload.Options { return &Options{} }

// Bind registers TPC-C's options, with the column encryption keys.
func (o *Options) Bind(fs *pflag.FlagSet, _ string) {
	fs.IntVar(&o.Warehouses, "warehouses", 1, "number of warehouses (scale factor)")
	fs.IntVar(&o.Level, "encrypt-columns", 0, "share of business columns encrypted in the client: 0, 20 (identifiers and customer personal data), 50 (+ prices, amounts, dates, quantities) or 100")
	fs.StringVar(&o.Isolation, "isolation", "default", "transaction isolation: default (the server's), read-committed, repeatable-read or serializable (a PostgreSQL session then also sets enable_seqscan = off, so its conflict checks lock rows, not whole one-page tables)")
	fs.BoolVar(&o.ThinkTime, "think-time", false, "wait the specification's keying and think times between transactions (off: terminals run flat out)")
	fs.StringVar(&o.RetryInput, "retry-input", retrySame, "a transaction a serialization failure or deadlock rolled back is tried again with: same (its input, as pgbench's --max-tries) or new (new input of the same type, as OLTPBench's worker)")
	colenc.BindFlags(fs, &o.Keys)
	workload.Mark(fs, workload.Setting, "isolation", "think-time", "retry-input")
}

// DefaultMaxTries: a terminal repeats a transaction a conflict rolled back
// until it commits (TPC-C counts completed transactions only), bounded by
// the run's end; --max-tries N caps it.
func (*Options) DefaultMaxTries() int { return 0 }

var isolations = map[string]string{"default": "", "read-committed": "READ COMMITTED", "repeatable-read": "REPEATABLE READ", "serializable": "SERIALIZABLE"}

func (Family) New(n string, opts workload.Options) (workload.Workload, error) {
	if n != name {
		return nil, errs.Usage("unknown workload %q", n)
	}
	o := *opts.(*Options)
	if o.Warehouses < 1 {
		return nil, errs.Usage("--warehouses must be at least 1")
	}
	valid := false
	for _, l := range levels {
		valid = valid || l == o.Level
	}
	if !valid {
		return nil, errs.Usage("--encrypt-columns %d: use 0, 20, 50 or 100", o.Level)
	}
	if _, ok := isolations[o.Isolation]; !ok {
		return nil, errs.Usage("unknown --isolation %q: use default, read-committed, repeatable-read or serializable", o.Isolation)
	}
	if o.RetryInput != retrySame && o.RetryInput != retryNew {
		return nil, errs.Usage("unknown --retry-input %q: use same or new", o.RetryInput)
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	return &Workload{o: o, s: newSchema(), seed: binary.LittleEndian.Uint64(seed[:]), delivered: newDeliveredHints(o.Warehouses)}, nil
}

// Workload is TPC-C with its options fixed.
type Workload struct {
	o    Options
	s    *schema
	seed uint64
	// delivered is shared by the run's terminals (see deliveredHints).
	delivered deliveredHints

	keysOnce sync.Once
	cipher   *colenc.Cipher
	keysErr  error
}

// configTable records the level and a keyset check value, so a run cannot
// read data encrypted at another level or under another keyset.
const configTable = "tpcc_config"

func (w *Workload) Name() string { return name }

func (w *Workload) Tables() []string { return append(w.s.tableNames(), configTable) }

func (w *Workload) Validate(threads int) error { return nil }

// Transaction types, in the order of the mix and of the result's items.
const (
	txNewOrder = iota
	txPayment
	txOrderStatus
	txDelivery
	txStockLevel
	txCount
)

var txNames = [txCount]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

var txLabels = [txCount]string{"NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel"}

// Capabilities: TPC-C times each transaction type, checks 3.3.2, encrypts
// columns by share and derives tpmC.
func (w *Workload) Capabilities() workload.Capabilities {
	parts := make([]workload.Part, txCount)
	for i := range parts {
		parts[i] = workload.Part{Name: txNames[i], Label: txLabels[i]}
	}
	return workload.Capabilities{Parts: parts, ExplainSQL: true, EncryptOption: "encrypt-columns",
		Check: w.Check, ProveColumns: w.ProveColumns, Rates: w.Rates}
}

func (w *Workload) Params() map[string]any {
	cols, business := w.s.encrypted(w.o.Level)
	return map[string]any{"warehouses": w.o.Warehouses, "encrypt_columns": w.o.Level, "isolation": w.o.Isolation,
		"retry_input": w.o.RetryInput, "think_time": w.o.ThinkTime, "mix": "45/43/4/4/4", "encrypted_columns": len(cols), "business_columns": business}
}

// Schema describes the tables for reports.
func (w *Workload) Schema() string {
	var parts []string
	for _, t := range w.s.tables {
		var cols []string
		for _, c := range t.cols {
			cols = append(cols, c.name)
		}
		parts = append(parts, t.name+"("+strings.Join(cols, ", ")+")")
	}
	return fmt.Sprintf("TPC-C 5.11, %d warehouse(s): %s. Structural columns (warehouse, district and item numbers, order-line number) are never encrypted; the other %d are business columns.",
		w.o.Warehouses, strings.Join(parts, "; "), w.businessColumns())
}

func (w *Workload) businessColumns() int {
	_, n := w.s.encrypted(100)
	return n
}

// Encryption lists the level's encrypted columns (for results and reports).
func (w *Workload) Encryption() (level int, cols []EncryptedColumn, business int) {
	cols, business = w.s.encrypted(w.o.Level)
	return w.o.Level, cols, business
}

// keys opens the column encryption keys once; level 0 needs none.
func (w *Workload) keys() (*colenc.Cipher, error) {
	if w.o.Level == 0 {
		return nil, nil
	}
	w.keysOnce.Do(func() { w.cipher, w.keysErr = colenc.Open(w.o.Keys) })
	return w.cipher, w.keysErr
}

func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, w.Tables())
}

// Rates derives tpmC (NewOrder transactions completed per minute).
func (w *Workload) Rates(items map[string]int64, seconds float64) map[string]float64 {
	if seconds <= 0 {
		return nil
	}
	return map[string]float64{"tpmC": float64(items["new_order"]) * 60 / seconds}
}

func (w *Workload) isolationSQL(d engine.Dialect) string {
	lvl := isolations[w.o.Isolation]
	if lvl == "" {
		return ""
	}
	return fmt.Sprintf(d.SetIsolation, lvl)
}
