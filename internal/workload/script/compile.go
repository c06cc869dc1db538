package script

import (
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
	"github.com/encbench/encbench/internal/workload/script/lang"
)

// scriptSet is the scripts compiled for one kind of server, with their
// variables numbered and a timed part for each statement.
type scriptSet struct {
	syms    lang.Symbols
	scripts []*lang.Script
	weights []int
	total   int
	// parts: per statement (pgbench -r), then per script when several.
	parts []workload.Part
	// queryPart[s][c][q] is the part of script s's command c's query q;
	// scriptPart[s] the script's own (-1 with one script).
	queryPart  [][][]int
	scriptPart []int
	// enc[s][c][q] is what the client encrypts and decrypts for script s's
	// command c's query q (nil: nothing).
	enc      [][][]*statementEnc
	readOnly bool
	// preset are the variables set before the first command: scale,
	// client_id, default_seed, random_seed and --define's.
	preset map[int]bool
}

// automatic are pgbench's automatic variables.
var automatic = []string{"client_id", "default_seed", "random_seed", "scale"}

// compile parses the scripts for a server whose SQL ends a transaction
// with END (PostgreSQL) or not (MySQL, MariaDB: COMMIT), and checks that
// no variable is read before anything can set it.
func (w *Workload) compile(endIsEnd bool) (*scriptSet, error) {
	set := &scriptSet{preset: map[int]bool{}, readOnly: true}
	for _, n := range automatic {
		set.preset[set.syms.Slot(n)] = true
	}
	for n := range w.defines {
		set.preset[set.syms.Slot(n)] = true
	}
	for _, src := range w.sources {
		text := src.text
		if src.builtin != "" {
			text, _ = lang.Builtin(src.builtin, endIsEnd)
		}
		s, err := lang.Parse(src.name, text, &set.syms)
		if err != nil {
			return nil, errs.Usage("%v", err)
		}
		set.scripts = append(set.scripts, s)
		set.weights = append(set.weights, src.weight)
		set.total += src.weight
	}
	var err error
	for _, s := range set.scripts {
		if err := set.checkVariables(s, nil); err != nil {
			return nil, err
		}
		var cmds [][]int
		var encs [][]*statementEnc
		for _, c := range s.Commands {
			var qs []int
			var es []*statementEnc
			for k, q := range c.Queries {
				var e *statementEnc
				if w.enc != nil {
					if e, err = analyzeStatement(q.SQL, w.enc); err != nil {
						return nil, errs.Usage("%s:%d: %v", s.Name, q.At.Line, err)
					}
				}
				es = append(es, e)
				name := s.Name + ":" + strconv.Itoa(q.At.Line)
				if len(c.Queries) > 1 {
					name += "." + strconv.Itoa(k+1)
				}
				qs = append(qs, len(set.parts))
				set.parts = append(set.parts, workload.Part{Name: name, Label: label(q.Text)})
				set.readOnly = set.readOnly && (q.Kind == lang.Read || isTxControl(q.Text))
			}
			cmds = append(cmds, qs)
			encs = append(encs, es)
		}
		set.queryPart = append(set.queryPart, cmds)
		set.enc = append(set.enc, encs)
	}
	for _, s := range set.scripts {
		part := -1
		if len(set.scripts) > 1 {
			part = len(set.parts)
			set.parts = append(set.parts, workload.Part{Name: "script:" + s.Name, Label: s.Name + " (the whole transaction)"})
		}
		set.scriptPart = append(set.scriptPart, part)
	}
	return set, nil
}

// checkVariables walks a script in order: a variable read must be preset
// or set by an earlier \set, or by an earlier \gset or \aset. gsetNames
// gives the variables a \gset or \aset command sets (its columns, known
// once the statement is prepared); without it, any read after a \gset is
// taken to be one it may set.
func (set *scriptSet) checkVariables(s *lang.Script, gsetNames func(cmd int) []string) error {
	known := map[int]bool{}
	for k := range set.preset {
		known[k] = true
	}
	gsetSeen := false
	check := func(uses []lang.VarUse) error {
		for _, u := range uses {
			if known[u.Slot] || gsetSeen && gsetNames == nil {
				continue
			}
			return errs.Usage("%s:%s: :%s is read before any \\set, \\gset, \\aset or --define sets it", s.Name, u.At, set.syms.Name(u.Slot))
		}
		return nil
	}
	for i, c := range s.Commands {
		var uses []lang.VarUse
		for _, q := range c.Queries {
			uses = append(uses, q.Params...)
		}
		for _, x := range []*lang.Expr{c.Expr, c.Sleep} {
			if x != nil {
				uses = x.Vars(uses)
			}
		}
		if err := check(uses); err != nil {
			return err
		}
		if c.Kind == lang.CmdSet {
			known[c.Var] = true
		}
		if c.Gset {
			gsetSeen = true
			if gsetNames != nil {
				for _, n := range gsetNames(i) {
					if slot, ok := set.syms.Lookup(n); ok {
						known[slot] = true
					}
				}
			}
		}
	}
	return nil
}

func isTxControl(sql string) bool {
	switch strings.ToUpper(strings.TrimSpace(sql)) {
	case "BEGIN", "COMMIT", "END", "ROLLBACK", "START TRANSACTION":
		return true
	}
	return false
}

// label is a statement's first 60 characters on one line.
func label(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
