// Package ycsb implements YCSB's core workloads A to F (site.ycsb.workloads.
// CoreWorkload) on SQL servers (usertable with YCSB_KEY and FIELD0..n, as
// YCSB's JDBC binding lays it out) and on MongoDB (documents keyed by _id).
package ycsb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

func init() { workload.Register(Family{}) }

// mix is a core workload's operation proportions and request distribution.
type mix struct {
	read, update, insert, scan, rmw float64
	dist                            string
	desc                            string
}

// The core workload files of YCSB 0.17 (workloads/workloada..f).
var mixes = map[string]mix{
	"ycsb_a": {read: 0.5, update: 0.5, dist: "zipfian", desc: "update heavy: 50% read, 50% update, zipfian"},
	"ycsb_b": {read: 0.95, update: 0.05, dist: "zipfian", desc: "read mostly: 95% read, 5% update, zipfian"},
	"ycsb_c": {read: 1, dist: "zipfian", desc: "read only, zipfian"},
	"ycsb_d": {read: 0.95, insert: 0.05, dist: "latest", desc: "read latest: 95% read, 5% insert, latest"},
	"ycsb_e": {scan: 0.95, insert: 0.05, dist: "zipfian", desc: "short ranges: 95% scan (1-100 records), 5% insert, zipfian"},
	"ycsb_f": {read: 0.5, rmw: 0.5, dist: "zipfian", desc: "read-modify-write: 50% read, 50% read-modify-write, zipfian"},
}

// Options are YCSB's property names (recordcount, operationcount, ...).
type Options struct {
	RecordCount    int64   `json:"recordcount"`
	OperationCount int64   `json:"operationcount"`
	FieldCount     int     `json:"fieldcount"`
	FieldLength    int     `json:"fieldlength"`
	Read           float64 `json:"readproportion"`
	Update         float64 `json:"updateproportion"`
	Insert         float64 `json:"insertproportion"`
	Scan           float64 `json:"scanproportion"`
	RMW            float64 `json:"readmodifywriteproportion"`
	Distribution   string  `json:"requestdistribution"`
	MaxScanLength  int     `json:"maxscanlength"`
	ScanLengthDist string  `json:"scanlengthdistribution"`
	InsertOrder    string  `json:"insertorder"`
	ReadAllFields  bool    `json:"readallfields"`
	WriteAllFields bool    `json:"writeallfields"`
	Table          string  `json:"table"`
}

// Family is YCSB's core workloads.
type Family struct{}

func (Family) Name() string { return "ycsb" }

// NewOptions: a proportion of -1 means "the core workload's own".
func (Family) NewOptions() workload.Options { return &Options{} }

func (Family) Workloads() map[string]string {
	out := map[string]string{}
	for n, m := range mixes {
		out[n] = "YCSB core workload " + strings.ToUpper(n[5:]) + ": " + m.desc
	}
	return out
}

// Bind registers YCSB's property names.
func (o *Options) Bind(fs *pflag.FlagSet, _ string) {
	fs.Int64Var(&o.RecordCount, "recordcount", 1000, "records loaded by prepare")
	fs.Int64Var(&o.OperationCount, "operationcount", 1000, "operations a run performs when neither --events nor --time is given")
	fs.IntVar(&o.FieldCount, "fieldcount", 10, "fields per record")
	fs.IntVar(&o.FieldLength, "fieldlength", 100, "bytes per field")
	fs.Float64Var(&o.Read, "readproportion", -1, "share of reads (default: the core workload's)")
	fs.Float64Var(&o.Update, "updateproportion", -1, "share of updates")
	fs.Float64Var(&o.Insert, "insertproportion", -1, "share of inserts")
	fs.Float64Var(&o.Scan, "scanproportion", -1, "share of scans")
	fs.Float64Var(&o.RMW, "readmodifywriteproportion", -1, "share of read-modify-writes")
	fs.StringVar(&o.Distribution, "requestdistribution", "", "zipfian, uniform or latest (default: the core workload's)")
	fs.IntVar(&o.MaxScanLength, "maxscanlength", 100, "longest scan")
	fs.StringVar(&o.ScanLengthDist, "scanlengthdistribution", "uniform", "uniform or zipfian scan lengths")
	fs.StringVar(&o.InsertOrder, "insertorder", "hashed", "hashed (keys spread by FNV hash) or ordered")
	fs.BoolVar(&o.ReadAllFields, "readallfields", true, "reads return every field")
	fs.BoolVar(&o.WriteAllFields, "writeallfields", false, "updates write every field, not one")
	fs.StringVar(&o.Table, "ycsb-table", "usertable", "table or collection name")
	// The key order decides the loaded keys and the keys a run asks for.
	workload.Mark(fs, workload.Both, "insertorder")
	// The operation mix; recordcount, the fields and the table are data.
	workload.Mark(fs, workload.Setting, "operationcount", "readproportion", "updateproportion", "insertproportion",
		"scanproportion", "readmodifywriteproportion", "requestdistribution", "maxscanlength", "scanlengthdistribution",
		"readallfields", "writeallfields")
}

func (Family) New(name string, opts workload.Options) (workload.Workload, error) {
	m, ok := mixes[name]
	if !ok {
		return nil, errs.Usage("unknown workload %q", name)
	}
	o := *opts.(*Options)
	pick := func(v *float64, def float64) {
		if *v < 0 {
			*v = def
		}
	}
	pick(&o.Read, m.read)
	pick(&o.Update, m.update)
	pick(&o.Insert, m.insert)
	pick(&o.Scan, m.scan)
	pick(&o.RMW, m.rmw)
	if o.Distribution == "" {
		o.Distribution = m.dist
	}
	switch {
	case o.RecordCount < 1:
		return nil, errs.Usage("--recordcount must be at least 1")
	case o.OperationCount < 1:
		return nil, errs.Usage("--operationcount must be at least 1")
	case o.FieldCount < 1 || o.FieldCount > 100:
		return nil, errs.Usage("--fieldcount must be between 1 and 100")
	case o.FieldLength < 1:
		return nil, errs.Usage("--fieldlength must be at least 1")
	case o.MaxScanLength < 1:
		return nil, errs.Usage("--maxscanlength must be at least 1")
	case o.Read+o.Update+o.Insert+o.Scan+o.RMW <= 0:
		return nil, errs.Usage("the operation proportions add up to 0: give --readproportion and friends")
	}
	if o.Distribution != "zipfian" && o.Distribution != "uniform" && o.Distribution != "latest" {
		return nil, errs.Usage("unknown --requestdistribution %q: use zipfian, uniform or latest", o.Distribution)
	}
	if o.ScanLengthDist != "uniform" && o.ScanLengthDist != "zipfian" {
		return nil, errs.Usage("unknown --scanlengthdistribution %q: use uniform or zipfian", o.ScanLengthDist)
	}
	if o.InsertOrder != "hashed" && o.InsertOrder != "ordered" {
		return nil, errs.Usage("unknown --insertorder %q: use hashed or ordered", o.InsertOrder)
	}
	for _, r := range o.Table {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return nil, errs.Usage("--ycsb-table %q: use letters, digits and _", o.Table)
		}
	}
	w := &Workload{name: name, o: o}
	w.inserts.init(o.RecordCount)
	return w, nil
}

// Workload is one core workload with its options fixed.
type Workload struct {
	name    string
	o       Options
	inserts counter
	// counted finds how many records the table holds before the first
	// worker starts, so inserts continue after earlier runs' inserts.
	counted  sync.Once
	countErr error
}

// Partition makes this generator's inserts disjoint from the others'.
func (w *Workload) Partition(index, count int) {
	w.inserts.index, w.inserts.stride = int64(index), int64(count)
}

// countRecords starts the insert sequence after the records already there
// (YCSB's insertstart), so repeated runs do not collide on keys.
func (w *Workload) countRecords(ctx context.Context, c engine.Conn) error {
	w.counted.Do(func() {
		var n int64
		if docs, ok := c.(engine.Documents); ok {
			n, w.countErr = docs.Count(ctx, w.o.Table)
		} else {
			var rows [][]string
			rows, w.countErr = c.Query(ctx, "SELECT COUNT(*) FROM "+w.o.Table)
			if w.countErr == nil && len(rows) == 1 {
				n, w.countErr = strconv.ParseInt(rows[0][0], 10, 64)
			}
		}
		if w.countErr != nil {
			w.countErr = fmt.Errorf("counting %s (run prepare first): %w", w.o.Table, w.countErr)
			return
		}
		w.inserts.init(max(n, w.o.RecordCount))
	})
	return w.countErr
}

// Item names, one per operation type, as YCSB reports them.
var itemNames = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}

func (w *Workload) Name() string       { return w.name }
func (w *Workload) Tables() []string   { return []string{w.o.Table} }
func (w *Workload) Validate(int) error { return nil }

// Capabilities: each operation type is timed on its own; a run does
// operationcount operations by default; SQL engines can EXPLAIN them;
// a mix of reads and scans only (core workload C) reads.
func (w *Workload) Capabilities() workload.Capabilities {
	parts := make([]workload.Part, len(itemNames))
	for i, n := range itemNames {
		parts[i] = workload.Part{Name: n, Label: strings.ToLower(n)}
	}
	readOnly := w.o.Update+w.o.Insert+w.o.RMW == 0
	return workload.Capabilities{Parts: parts, DefaultEvents: w.o.OperationCount, ExplainSQL: true, ReadOnly: readOnly}
}

func (w *Workload) Params() map[string]any {
	o := w.o
	return map[string]any{"recordcount": o.RecordCount, "operationcount": o.OperationCount, "fieldcount": o.FieldCount,
		"fieldlength": o.FieldLength, "readproportion": o.Read, "updateproportion": o.Update, "insertproportion": o.Insert,
		"scanproportion": o.Scan, "readmodifywriteproportion": o.RMW, "requestdistribution": o.Distribution,
		"maxscanlength": o.MaxScanLength, "scanlengthdistribution": o.ScanLengthDist, "insertorder": o.InsertOrder,
		"readallfields": o.ReadAllFields, "writeallfields": o.WriteAllFields, "table": o.Table}
}

// Schema describes the table for reports.
func (w *Workload) Schema() string {
	return fmt.Sprintf("%s(YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0..FIELD%d TEXT), %d records of %d fields x %d bytes; keys \"user\"+FNV-64 hash of the record number (insertorder=%s); on MongoDB documents {_id: key, FIELD0..}.",
		w.o.Table, w.o.FieldCount-1, w.o.RecordCount, w.o.FieldCount, w.o.FieldLength, w.o.InsertOrder)
}

// key is YCSB's buildKeyName: "user" + the (hashed) record number.
func (w *Workload) key(buf []byte, n int64) []byte {
	if w.o.InsertOrder == "hashed" {
		n = fnvHash64(n)
	}
	buf = append(buf[:0], "user"...)
	return strconv.AppendInt(buf, n, 10)
}

func (w *Workload) field(i int) string { return "FIELD" + strconv.Itoa(i) }

// Prepare is YCSB's load phase: records 0..recordcount-1, split over
// --threads loaders.
func (w *Workload) Prepare(ctx context.Context, env workload.Env) error {
	admin, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	docs, isDocs := admin.(engine.Documents)
	if isDocs {
		if env.TDE {
			return errs.Usage("prepare --tde is for SQL servers; MongoDB encrypts at rest in the server's own configuration")
		}
		if err := workload.CheckPrepareDocs(ctx, docs, []string{w.o.Table}, env.Force); err != nil {
			return err
		}
	} else {
		suffix, err := workload.StartTables(ctx, env, admin, []string{w.o.Table})
		if err != nil {
			return err
		}
		if err := workload.Own(ctx, admin, w.name, []string{w.o.Table}); err != nil {
			return err
		}
		cols := []string{"YCSB_KEY VARCHAR(255) NOT NULL PRIMARY KEY"}
		for i := 0; i < w.o.FieldCount; i++ {
			cols = append(cols, w.field(i)+" TEXT")
		}
		if err := admin.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s) %s", w.o.Table, strings.Join(cols, ", "), suffix)); err != nil {
			return fmt.Errorf("creating %s: %w", w.o.Table, err)
		}
	}
	fmt.Fprintf(env.Log, "Loading %d records into '%s'...\n", w.o.RecordCount, w.o.Table)
	loaders := int64(max(1, env.Threads))
	g, gctx := errgroup.WithContext(ctx)
	for l := int64(0); l < loaders; l++ {
		g.Go(func() error {
			c, err := env.Connect(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			ld := newLoader(w, c, l)
			for n := l; n < w.o.RecordCount; n += loaders {
				if err := ld.add(gctx, n); err != nil {
					return err
				}
			}
			return ld.flush(gctx)
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("loading %s: %w", w.o.Table, err)
	}
	if isDocs {
		return workload.OwnDocs(ctx, docs, w.name, []string{w.o.Table})
	}
	return nil
}

func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, []string{w.o.Table})
}
