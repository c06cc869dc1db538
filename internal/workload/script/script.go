// Package script runs a team's own transactions, written in pgbench's
// script language (package lang), on PostgreSQL and MySQL/MariaDB:
// `encbench run script --file tx.sql@WEIGHT`, pgbench's built-in scripts
// by name, and `encbench prepare pgbench --scale N` for the tables
// pgbench -i makes.
package script

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
	"github.com/encbench/encbench/internal/workload/script/lang"
)

// Two families, so that a suite prepares pgbench's tables for pgbench
// and nothing for a script of its own (a suite prepares once per family).
func init() {
	workload.Register(Family{name: "script"})
	workload.Register(Family{name: "pgbench"})
}

// Options are the family's flags.
type Options struct {
	Files    []string
	Builtins []string
	Defines  []string
	Scale    int
	Init     string
	Seed     int64
	// Encrypt is --encrypt: columns the client encrypts (det, rnd).
	Encrypt []string
	Keys    colenc.Paths
}

// Family is pgbench's custom scripts (script) or its built-in TPC-B-like
// benchmark with its tables (pgbench), one workload each.
type Family struct{ name string }

func (f Family) Name() string { return f.name }

var descriptions = map[string]string{
	"script":  "your own transactions in pgbench's script language: --file tx.sql[@WEIGHT] (repeatable), --builtin NAME[@WEIGHT], --define NAME=VALUE",
	"pgbench": "pgbench's built-in scripts (--builtin tpcb-like, the default; simple-update; select-only) on the tables pgbench -i makes (prepare --scale N)",
}

func (f Family) Workloads() map[string]string { return map[string]string{f.name: descriptions[f.name]} }

func (Family) NewOptions() workload.Options { return &Options{} }

// errNoScript: a run of the script workload names what it runs (prepare
// and cleanup need no script).
var errNoScript = errs.Usage("script needs --file tx.sql (a script in pgbench's language) or --builtin %s", strings.Join(lang.Builtins(), "|"))

// Bind registers the options; --scale and --init say what prepare makes.
func (o *Options) Bind(fs *pflag.FlagSet, name string) {
	fs.StringArrayVar(&o.Files, "file", nil, "a script in pgbench's language, with an optional weight after @ (tx.sql@3); repeat for several, chosen at random by weight per transaction")
	fs.StringArrayVar(&o.Builtins, "builtin", nil, "a pgbench built-in script by name ("+strings.Join(lang.Builtins(), ", ")+"), with an optional @weight")
	fs.StringArrayVar(&o.Defines, "define", nil, "NAME=VALUE: a variable the scripts read, as pgbench's -D (repeatable)")
	defScale, defInit := 1, "pgbench"
	if name == "script" {
		defInit = "none"
	}
	fs.IntVar(&o.Scale, "scale", defScale, "pgbench's scale factor: prepare makes 100,000 accounts, 10 tellers and 1 branch per unit; a run's :scale (a run of a built-in script reads it from pgbench_branches)")
	fs.StringVar(&o.Init, "init", defInit, "what prepare makes: pgbench (pgbench -i's four tables at --scale) or none (the script runs on tables you made, or another workload's prepare made)")
	fs.Int64Var(&o.Seed, "random-seed", 0, "the seed of the scripts' random functions, as pgbench's --random-seed (0: from the clock); :random_seed holds it")
	fs.StringArrayVar(&o.Encrypt, "encrypt", nil, "TABLE.COLUMN=det|rnd[,...]: columns the client encrypts (prepare pgbench stores them encrypted; a run encrypts the :variables bound to them and decrypts them in results, and a use the scheme cannot serve is refused with its line)")
	colenc.BindFlags(fs, &o.Keys)
	workload.Mark(fs, workload.Setting, "file", "builtin", "define", "random-seed")
	workload.Mark(fs, workload.Both, "scale", "encrypt")
}

// source is one script as given: its text, weight and hash.
type source struct {
	name   string
	text   string
	weight int
	// builtin names a built-in script (its text depends on the engine).
	builtin string
	sha256  string
}

// Workload is a set of scripts with their options fixed.
type Workload struct {
	name    string
	o       Options
	sources []source
	defines map[string]string
	// seed is --random-seed, or the clock's when 0: every worker's
	// generators derive from it.
	seed int64
	// enc is --encrypt (nil: no column is encrypted).
	enc encSpec
	// compiled are the scripts compiled for PostgreSQL ([1]: END ends a
	// transaction) and for MySQL/MariaDB ([0]), once each: the workers
	// share them, read only.
	compiled [2]compiledSet
}

type compiledSet struct {
	once sync.Once
	set  *scriptSet
	err  error
}

// scripts is the script set for a server whose SQL takes END or not,
// compiled on first use.
func (w *Workload) scripts(endIsEnd bool) (*scriptSet, error) {
	c := &w.compiled[0]
	if endIsEnd {
		c = &w.compiled[1]
	}
	c.once.Do(func() { c.set, c.err = w.compile(endIsEnd) })
	return c.set, c.err
}

func (f Family) New(name string, opts workload.Options) (workload.Workload, error) {
	o := *opts.(*Options)
	w := &Workload{name: name, o: o, defines: map[string]string{}, seed: o.Seed}
	if w.seed == 0 {
		w.seed = time.Now().UnixNano()
	}
	if o.Init != "pgbench" && o.Init != "none" {
		return nil, errs.Usage("--init %q: give pgbench (pgbench -i's tables) or none", o.Init)
	}
	if o.Scale < 1 {
		return nil, errs.Usage("--scale must be at least 1")
	}
	for _, f := range o.Files {
		path, weight, err := splitWeight(f, "--file")
		if err != nil {
			return nil, err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, errs.Usage("--file %s: %v", path, err)
		}
		sum := sha256.Sum256(text)
		w.sources = append(w.sources, source{name: filepath.Base(path), text: string(text), weight: weight, sha256: hex.EncodeToString(sum[:])})
	}
	for _, b := range o.Builtins {
		n, weight, err := splitWeight(b, "--builtin")
		if err != nil {
			return nil, err
		}
		if _, ok := lang.Builtin(n, true); !ok {
			return nil, errs.Usage("--builtin %q: pgbench's built-in scripts are %s", n, strings.Join(lang.Builtins(), ", "))
		}
		w.sources = append(w.sources, source{name: n, builtin: n, weight: weight})
	}
	if len(w.sources) == 0 && name == "pgbench" {
		w.sources = []source{{name: "tpcb-like", builtin: "tpcb-like", weight: 1}}
	}
	total := 0
	for _, s := range w.sources {
		total += s.weight
	}
	if total == 0 && len(w.sources) > 0 {
		return nil, errs.Usage("every script has weight 0: give one a weight above 0")
	}
	for _, d := range o.Defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return nil, errs.Usage("--define %q: give NAME=VALUE", d)
		}
		w.defines[k] = v
	}
	if len(o.Encrypt) > 0 {
		spec, err := parseEncrypt(o.Encrypt)
		if err != nil {
			return nil, errs.Usage("%v", err)
		}
		w.enc = spec
	}
	// Parsed here for the errors (file:line:column, before anything
	// connects); MySQL's set is compiled when a worker first needs it.
	if _, err := w.scripts(true); err != nil {
		return nil, err
	}
	return w, nil
}

// splitWeight reads NAME[@WEIGHT]; an @ followed by anything but digits
// is part of the name.
func splitWeight(s, flag string) (string, int, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 || strings.IndexFunc(s[i+1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return s, 1, nil
	}
	weight, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return "", 0, errs.Usage("%s %s: the weight after @ is a whole number, 0 or more", flag, s)
	}
	return s[:i], weight, nil
}

func (w *Workload) Name() string       { return w.name }
func (w *Workload) Validate(int) error { return nil }

// pgbenchTables are the tables pgbench -i makes.
var pgbenchTables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

func (w *Workload) Tables() []string {
	if w.o.Init == "pgbench" {
		return pgbenchTables
	}
	return nil
}

// Params record what ran: each script's name, weight and SHA-256 (a
// built-in script by name), the variables defined, the scale.
func (w *Workload) Params() map[string]any {
	var scripts []map[string]any
	for _, s := range w.sources {
		m := map[string]any{"name": s.name, "weight": s.weight}
		if s.builtin != "" {
			m["builtin"] = s.builtin
		} else {
			m["sha256"] = s.sha256
		}
		scripts = append(scripts, m)
	}
	p := map[string]any{"scripts": scripts, "defines": w.defines, "scale": w.o.Scale, "init": w.o.Init, "random_seed": w.o.Seed}
	if w.enc != nil {
		p["encrypt"] = w.enc.String()
	}
	return p
}

func (w *Workload) Schema() string {
	names := make([]string, len(w.sources))
	for i, s := range w.sources {
		names[i] = s.name + "@" + strconv.Itoa(s.weight)
		if s.sha256 != "" {
			names[i] += " (SHA-256 " + s.sha256[:16] + "...)"
		}
	}
	tables := "tables the scripts name"
	if w.o.Init == "pgbench" {
		tables = fmt.Sprintf("pgbench -i's tables at scale %d: pgbench_accounts (%d rows), pgbench_tellers (%d), pgbench_branches (%d), pgbench_history", w.o.Scale, 100000*w.o.Scale, 10*w.o.Scale, w.o.Scale)
	}
	return "pgbench scripts " + strings.Join(names, ", ") + " on " + tables
}

// Capabilities: a part per statement (pgbench -r) and, with several
// scripts, one per script; a run of statements that only read reads.
func (w *Workload) Capabilities() workload.Capabilities {
	set, _ := w.scripts(true)
	c := workload.Capabilities{Parts: set.parts, ReadOnly: set.readOnly, EncryptOption: "encrypt"}
	if w.enc != nil {
		c.ProveColumns = w.proveColumns
	}
	return c
}

// DefaultMaxTries: pgbench's --max-tries default, one try.
func (*Options) DefaultMaxTries() int { return 1 }
