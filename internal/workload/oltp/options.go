// Package oltp implements sysbench 1.0.20's OLTP Lua workloads: same schema,
// data, statements per transaction and options.
package oltp

import (
	"fmt"
	"math/rand/v2"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/randgen"
	"github.com/encbench/encbench/internal/workload"
)

func init() { workload.Register(Family{}) }

// Options are oltp_common.lua's options plus the two select_random_* ones.
type Options struct {
	Tables          int  `json:"tables"`
	TableSize       int  `json:"table_size"`
	RangeSize       int  `json:"range_size"`
	PointSelects    int  `json:"point_selects"`
	SimpleRanges    int  `json:"simple_ranges"`
	SumRanges       int  `json:"sum_ranges"`
	OrderRanges     int  `json:"order_ranges"`
	DistinctRanges  int  `json:"distinct_ranges"`
	IndexUpdates    int  `json:"index_updates"`
	NonIndexUpdates int  `json:"non_index_updates"`
	DeleteInserts   int  `json:"delete_inserts"`
	RangeSelects    bool `json:"range_selects"`
	AutoInc         bool `json:"auto_inc"`
	SkipTrx         bool `json:"skip_trx"`
	Secondary       bool `json:"secondary"`
	CreateSecondary bool `json:"create_secondary"`
	RandomPoints    int  `json:"random_points"`
	NumberOfRanges  int  `json:"number_of_ranges"`
	Delta           int  `json:"delta"`
	// Encrypt is --encrypt of the enc_* workloads.
	Encrypt string `json:"encrypt"`
	// KSumCopy keeps an ashe copy of an ore k for range sums on the server.
	KSumCopy bool `json:"k_sum_copy"`
	// KSumByValue: range sums over k count rows per distinct k on the
	// server (an ore k through a value-bound copy, k_value).
	KSumByValue bool `json:"k_sum_by_value"`
	Rand        randgen.Options
	Keys        colenc.Paths
}

// Family is the sysbench OLTP family, with report R4's enc_* workloads.
type Family struct{}

func (Family) Name() string { return "oltp" }

func (Family) NewOptions() workload.Options { return &Options{} }

var descriptions = map[string]string{
	"oltp_point_select":     "1 primary-key SELECT per event",
	"oltp_read_only":        "BEGIN, 10 point selects, 4 range selects, COMMIT",
	"oltp_read_write":       "read_only plus index update, non-index update, delete+insert",
	"oltp_write_only":       "BEGIN, index update, non-index update, delete+insert, COMMIT",
	"oltp_update_index":     "1 UPDATE of the indexed column k per event",
	"oltp_update_non_index": "1 UPDATE of column c per event",
	"oltp_insert":           "1 INSERT per event",
	"oltp_delete":           "1 DELETE by primary key per event",
	"select_random_points":  "SELECT ... WHERE k IN (10 random points)",
	"select_random_ranges":  "SELECT count(k) ... WHERE 10 OR-ed k BETWEEN ranges",
}

func (Family) Workloads() map[string]string {
	out := make(map[string]string, len(descriptions)+len(encDescriptions))
	for n, d := range descriptions {
		out[n] = d
	}
	for n, d := range encDescriptions {
		out[n] = d
	}
	return out
}

// Bind registers sysbench's option names and defaults; the select_random_*
// options only for their scripts, --encrypt and the keys only for enc_*.
func (o *Options) Bind(fs *pflag.FlagSet, name string) {
	fs.IntVar(&o.Tables, "tables", 1, "Number of tables")
	fs.IntVar(&o.TableSize, "table-size", 10000, "Number of rows per table")
	fs.IntVar(&o.RangeSize, "range-size", 100, "Range size for range SELECT queries")
	fs.IntVar(&o.PointSelects, "point-selects", 10, "Number of point SELECT queries per transaction")
	fs.IntVar(&o.SimpleRanges, "simple-ranges", 1, "Number of simple range SELECT queries per transaction")
	fs.IntVar(&o.SumRanges, "sum-ranges", 1, "Number of SELECT SUM() queries per transaction")
	fs.IntVar(&o.OrderRanges, "order-ranges", 1, "Number of SELECT ORDER BY queries per transaction")
	fs.IntVar(&o.DistinctRanges, "distinct-ranges", 1, "Number of SELECT DISTINCT queries per transaction")
	fs.IntVar(&o.IndexUpdates, "index-updates", 1, "Number of UPDATE index queries per transaction")
	fs.IntVar(&o.NonIndexUpdates, "non-index-updates", 1, "Number of UPDATE non-index queries per transaction")
	fs.IntVar(&o.DeleteInserts, "delete-inserts", 1, "Number of DELETE/INSERT combinations per transaction")
	fs.BoolVar(&o.RangeSelects, "range-selects", true, "Enable/disable all range SELECT queries")
	fs.BoolVar(&o.AutoInc, "auto-inc", true, "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs")
	fs.BoolVar(&o.SkipTrx, "skip-trx", false, "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode")
	fs.BoolVar(&o.Secondary, "secondary", false, "Use a secondary index in place of the PRIMARY KEY")
	fs.BoolVar(&o.CreateSecondary, "create-secondary", true, "Create a secondary index in addition to the PRIMARY KEY")
	o.RandomPoints, o.NumberOfRanges, o.Delta = 10, 10, 5
	switch {
	case name == "select_random_points":
		fs.IntVar(&o.RandomPoints, "random-points", 10, "Number of random points in the IN() clause in generated SELECTs")
	case name == "select_random_ranges":
		fs.IntVar(&o.NumberOfRanges, "number-of-ranges", 10, "Number of random BETWEEN ranges per SELECT")
		fs.IntVar(&o.Delta, "delta", 5, "Size of BETWEEN ranges")
	case isEnc(name):
		fs.StringVar(&o.Encrypt, "encrypt", "", "columns encrypted in the client, any of id,k,c,pad, each optionally column:scheme (rnd, det, ore for id and k, ashe for k); defaults id:det, others rnd; empty = plaintext")
		fs.BoolVar(&o.KSumCopy, "k-sum-copy", false, "with k:ore or k:det, also store an ashe copy of k (columns k_sum, k_sum_id) so range sums add k on the server and return only identifier runs")
		fs.BoolVar(&o.KSumByValue, "k-sum-by-value", false, "range sums over k count the rows of each distinct k on the server and the client adds value x count; with k:det the server groups k itself, with k:ore a copy of k bound to its column, not its row (column k_value, PostgreSQL type ore_det), whose index holds one entry per value")
		colenc.BindFlags(fs, &o.Keys)
	}
	d := randgen.Defaults()
	fs.StringVar(&o.Rand.Type, "rand-type", d.Type, "random numbers distribution {uniform,gaussian,special,pareto,zipfian}")
	fs.IntVar(&o.Rand.SpecIter, "rand-spec-iter", d.SpecIter, "number of iterations used for numbers generation")
	fs.IntVar(&o.Rand.SpecPct, "rand-spec-pct", d.SpecPct, "percentage of values to be treated as 'special' (for special distribution)")
	fs.IntVar(&o.Rand.SpecRes, "rand-spec-res", d.SpecRes, "percentage of 'special' values to use (for special distribution)")
	fs.Uint64Var(&o.Rand.Seed, "rand-seed", 0, "seed for random number generator. When 0, the current time is used as a RNG seed.")
	fs.Float64Var(&o.Rand.ParetoH, "rand-pareto-h", d.ParetoH, "parameter h for pareto distribution")
	fs.Float64Var(&o.Rand.ZipfianExp, "rand-zipfian-exp", d.ZipfianExp, "shape parameter (exponent, theta) for the Zipfian distribution")
	// sysbench draws the loaded k with the same distribution as a run's
	// keys: these shape the data set in prepare and the draws in run.
	workload.Mark(fs, workload.Both, "rand-type", "rand-spec-iter", "rand-spec-pct", "rand-spec-res", "rand-seed", "rand-pareto-h", "rand-zipfian-exp")
	// What a transaction does, not what the tables hold.
	workload.Mark(fs, workload.Setting, "range-size", "point-selects", "simple-ranges", "sum-ranges", "order-ranges",
		"distinct-ranges", "index-updates", "non-index-updates", "delete-inserts", "range-selects", "skip-trx")
	for _, n := range []string{"random-points", "number-of-ranges", "delta"} {
		if fs.Lookup(n) != nil {
			workload.Mark(fs, workload.Setting, n)
		}
	}
}

func (Family) New(name string, opts workload.Options) (workload.Workload, error) {
	_, sysbench := descriptions[name]
	if !sysbench && !isEnc(name) {
		return nil, errs.Usage("unknown oltp workload %q", name)
	}
	o := *opts.(*Options)
	if name == "oltp_point_select" {
		o.PointSelects = 1 // oltp_point_select.lua overrides it
	}
	w := &Workload{name: name, opts: o, unique: newUniqueSeq(rand.Uint32(), rand.Uint32())}
	w.enc.keys = o.Keys
	spec, err := parseEncrypt(o.Encrypt)
	if err != nil {
		return nil, err
	}
	w.enc.spec = spec
	return w, nil
}

// Workload is one sysbench OLTP script.
type Workload struct {
	name   string
	opts   Options
	unique *uniqueSeq // shared by workers of oltp_insert with --auto-inc=off
	enc    encState
	// server is a server-side column layer (srvenc), nil when none.
	server layer.ServerColumns
}

func (w *Workload) Name() string { return w.name }

// Capabilities: every oltp workload is SQL to explain; enc_* encrypt
// columns chosen by --encrypt and prove it.
func (w *Workload) Capabilities() workload.Capabilities {
	c := workload.Capabilities{ExplainSQL: true, ReadOnly: w.readOnly()}
	if isEnc(w.name) {
		c.EncryptOption = "encrypt"
		c.ProveColumns = w.ProveColumns
	}
	return c
}

// readOnly says whether the script changes no row with these options.
func (w *Workload) readOnly() bool {
	o := w.opts
	switch w.name {
	case "oltp_point_select", "oltp_read_only", "select_random_points", "select_random_ranges",
		"enc_point_select", "enc_range_sum", "enc_point_select_k", "enc_range_sum_k":
		return true
	case "oltp_read_write", "oltp_write_only":
		return o.IndexUpdates+o.NonIndexUpdates+o.DeleteInserts == 0
	}
	return false
}

func (w *Workload) Params() map[string]any {
	o := w.opts
	p := map[string]any{
		"tables": o.Tables, "table_size": o.TableSize, "range_size": o.RangeSize,
		"point_selects": o.PointSelects, "simple_ranges": o.SimpleRanges, "sum_ranges": o.SumRanges,
		"order_ranges": o.OrderRanges, "distinct_ranges": o.DistinctRanges,
		"index_updates": o.IndexUpdates, "non_index_updates": o.NonIndexUpdates,
		"delete_inserts": o.DeleteInserts, "range_selects": o.RangeSelects, "auto_inc": o.AutoInc,
		"skip_trx": o.SkipTrx, "secondary": o.Secondary, "create_secondary": o.CreateSecondary,
		"rand_type": o.Rand.Type, "rand_spec_iter": o.Rand.SpecIter, "rand_spec_pct": o.Rand.SpecPct,
		"rand_spec_res": o.Rand.SpecRes, "rand_pareto_h": o.Rand.ParetoH, "rand_zipfian_exp": o.Rand.ZipfianExp,
		"rand_seed": o.Rand.Seed,
	}
	if isEnc(w.name) {
		p["encrypt"] = w.encSpecText()
	}
	switch w.name {
	case "select_random_points":
		p["random_points"] = o.RandomPoints
	case "select_random_ranges":
		p["number_of_ranges"], p["delta"] = o.NumberOfRanges, o.Delta
	}
	return p
}

func (w *Workload) Validate(threads int) error {
	o := w.opts
	if err := o.Rand.Validate(); err != nil {
		return errs.Usage("%w", err)
	}
	switch {
	case o.Tables < 1:
		return errs.Usage("--tables must be at least 1")
	case o.TableSize < 0:
		return errs.Usage("--table-size must not be negative")
	case o.RangeSize < 1:
		return errs.Usage("--range-size must be at least 1")
	case o.RandomPoints < 1 || o.NumberOfRanges < 1 || o.Delta < 0:
		return errs.Usage("--random-points and --number-of-ranges must be at least 1, --delta not negative")
	}
	for _, n := range []int{o.PointSelects, o.SimpleRanges, o.SumRanges, o.OrderRanges, o.DistinctRanges, o.IndexUpdates, o.NonIndexUpdates, o.DeleteInserts} {
		if n < 0 {
			return errs.Usage("statement counts per transaction (--point-selects, --simple-ranges, ...) must not be negative")
		}
	}
	if (w.name == "select_random_points" || w.name == "select_random_ranges") && o.Tables != 1 {
		return errs.Usage("%s does not support --tables > 1 (as in sysbench)", w.name)
	}
	if threads < 1 {
		return errs.Usage("--threads must be at least 1")
	}
	return nil
}

func tableName(i int) string { return fmt.Sprintf("sbtest%d", i) }

// Schema describes the tables for reports, in sysbench's terms.
func (w *Workload) Schema() string {
	o := w.opts
	idx := "index k_N(k) created after loading"
	if !o.CreateSecondary {
		idx = "no secondary index (--create-secondary=off)"
	}
	if isEnc(w.name) {
		return w.encSchema(idx)
	}
	return fmt.Sprintf("%d tables sbtest1..sbtest%d, %d rows each: id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "+
		"c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL; %s. c is 10 groups of 11 random digits, pad 5 groups, "+
		"k random in 1..%d (sysbench 1.0.20 oltp_common.lua).", o.Tables, o.Tables, o.TableSize, idx, o.TableSize)
}
