package lang

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// CmdKind is what a command does.
type CmdKind uint8

const (
	CmdSQL CmdKind = iota + 1
	CmdSet
	CmdSleep
	CmdIf
	CmdElif
	CmdElse
	CmdEndif
)

// QueryKind classifies a statement as sysbench counts them.
type QueryKind uint8

const (
	Other QueryKind = iota
	Read
	Write
)

// Query is one SQL statement, its :variables replaced by ? placeholders
// bound in order.
type Query struct {
	SQL    string
	Params []VarUse
	// Text is the statement as written, for labels and errors.
	Text string
	At   Pos
	Kind QueryKind
}

// Command is one command of a script.
type Command struct {
	Kind CmdKind
	At   Pos
	// Queries: an SQL command, one statement or several joined by \;
	// (sent one after another).
	Queries []Query
	// Gset says the command ends in \gset (the last statement's one row)
	// or, with Aset, \aset (every statement's rows); Prefix prefixes the
	// variables named after the result's columns.
	Gset, Aset bool
	Prefix     string
	// Var and Expr: \set Var Expr; Expr alone: \if and \elif.
	Var  int
	Expr *Expr
	// Sleep is \sleep's duration, a constant or a variable, in Unit.
	Sleep *Expr
	Unit  time.Duration
	// Next is where a false \if or \elif goes (the next \elif, \else or
	// \endif); End is the \endif of an \elif or \else reached from a
	// branch that ran.
	Next, End int
}

// Script is a parsed script.
type Script struct {
	Name     string
	Commands []Command
}

type scanner struct {
	file  string
	text  string
	lines []int // byte offset of each line's start
	i     int
	syms  *Symbols
	cmds  []Command
}

func (s *scanner) pos(i int) Pos {
	l := sort.Search(len(s.lines), func(k int) bool { return s.lines[k] > i }) - 1
	return Pos{Line: l + 1, Col: i - s.lines[l] + 1}
}

func (s *scanner) errAt(i int, format string, args ...any) error {
	return &ParseError{File: s.file, At: s.pos(i), Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a script. syms numbers the variables of every script a run
// uses, which share them (a client's variables outlive a transaction).
func Parse(file, text string, syms *Symbols) (*Script, error) {
	s := &scanner{file: file, text: text, syms: syms, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	for {
		s.skipSpaceAndComments()
		if s.i >= len(text) {
			break
		}
		var err error
		if text[s.i] == '\\' {
			err = s.meta()
		} else {
			err = s.sql()
		}
		if err != nil {
			return nil, err
		}
	}
	if err := s.resolveIfs(); err != nil {
		return nil, err
	}
	if len(s.cmds) == 0 {
		return nil, &ParseError{File: file, At: Pos{1, 1}, Msg: "the script has no command"}
	}
	return &Script{Name: file, Commands: s.cmds}, nil
}

func (s *scanner) skipSpaceAndComments() {
	t := s.text
	for s.i < len(t) {
		switch {
		case t[s.i] == ' ' || t[s.i] == '\t' || t[s.i] == '\n' || t[s.i] == '\r' || t[s.i] == '\f':
			s.i++
		case strings.HasPrefix(t[s.i:], "--"):
			for s.i < len(t) && t[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

// metaLine reads a meta command from s.i to the end of its line, joining
// lines continued with a backslash before the newline.
func (s *scanner) metaLine() source {
	var b strings.Builder
	var pos []Pos
	t := s.text
	for s.i < len(t) && t[s.i] != '\n' {
		if t[s.i] == '\\' && s.i+1 < len(t) && t[s.i+1] == '\n' && b.Len() > 0 {
			s.i += 2
			continue
		}
		if t[s.i] == '\\' && strings.HasPrefix(t[s.i:], "\\\r\n") && b.Len() > 0 {
			s.i += 3
			continue
		}
		b.WriteByte(t[s.i])
		pos = append(pos, s.pos(s.i))
		s.i++
	}
	return source{text: b.String(), pos: pos}
}

// words splits a meta line at white space, with each word's offset.
func words(src source) (ws []string, at []int) {
	t := src.text
	for i := 0; i < len(t); {
		for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r') {
			i++
		}
		j := i
		for j < len(t) && t[j] != ' ' && t[j] != '\t' && t[j] != '\r' {
			j++
		}
		if j > i {
			ws, at = append(ws, t[i:j]), append(at, i)
		}
		i = j
	}
	return ws, at
}

func (s *scanner) meta() error {
	start := s.i
	src := s.metaLine()
	ws, at := words(src)
	name := strings.ToLower(strings.TrimPrefix(ws[0], "\\"))
	errAt := func(k int, format string, args ...any) error {
		return &ParseError{File: s.file, At: src.at(k), Msg: fmt.Sprintf(format, args...)}
	}
	c := Command{At: s.pos(start)}
	switch name {
	case "set":
		if len(ws) < 3 {
			return errAt(len(src.text), `\set needs a variable and an expression: \set name expression`)
		}
		if !validName(ws[1]) {
			return errAt(at[1], "invalid variable name %q: letters, digits and _, not a digit first", ws[1])
		}
		x, err := parseExpr(s.file, source{text: src.text[at[2]:], pos: src.pos[at[2]:]}, s.syms)
		if err != nil {
			return err
		}
		c.Kind, c.Var, c.Expr = CmdSet, s.syms.Slot(ws[1]), x
	case "sleep":
		if len(ws) < 2 || len(ws) > 3 {
			return errAt(len(src.text), `\sleep takes a duration and an optional unit: \sleep 10 ms, \sleep :d us`)
		}
		x, err := parseExpr(s.file, source{text: ws[1], pos: src.pos[at[1] : at[1]+len(ws[1])]}, s.syms)
		if err != nil {
			return err
		}
		if x.op != opConst && x.op != opVar || x.op == opConst && x.val.Kind != Int {
			return errAt(at[1], `\sleep takes an integer or a :variable, not %q`, ws[1])
		}
		c.Kind, c.Sleep, c.Unit = CmdSleep, x, time.Second
		if len(ws) == 3 {
			units := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}
			u, ok := units[strings.ToLower(ws[2])]
			if !ok {
				return errAt(at[2], `\sleep's unit is us, ms or s, not %q`, ws[2])
			}
			c.Unit = u
		}
	case "if", "elif":
		if len(ws) < 2 {
			return errAt(len(src.text), `\%s needs an expression`, name)
		}
		x, err := parseExpr(s.file, source{text: src.text[at[1]:], pos: src.pos[at[1]:]}, s.syms)
		if err != nil {
			return err
		}
		c.Kind, c.Expr = map[string]CmdKind{"if": CmdIf, "elif": CmdElif}[name], x
	case "else", "endif":
		if len(ws) > 1 {
			return errAt(at[1], `\%s takes no argument`, name)
		}
		c.Kind = map[string]CmdKind{"else": CmdElse, "endif": CmdEndif}[name]
	case "gset", "aset":
		return errAt(0, `\%s ends an SQL command (in place of its semicolon): SELECT ... \%s`, name, name)
	case "setshell", "shell":
		return errAt(0, `\%s is not supported: encbench runs no shell commands from a script (its time would land in the transaction's latency)`, name)
	case "startpipeline", "endpipeline", "syncpipeline":
		return errAt(0, `\%s is not supported: encbench's clients send one statement and wait for its result, as pgbench -M prepared does outside a pipeline`, name)
	default:
		return errAt(0, `invalid command \%s: pgbench's are \set, \sleep, \if, \elif, \else, \endif, \gset and \aset`, name)
	}
	s.cmds = append(s.cmds, c)
	return nil
}

func validName(n string) bool {
	if n == "" || isDigit(n[0]) {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isAlpha(n[i]) && !isDigit(n[i]) {
			return false
		}
	}
	return true
}

// sql reads an SQL command: up to an unquoted semicolon, a backslash
// command (\gset and \aset end it and belong to it), or the end.
func (s *scanner) sql() error {
	c := Command{Kind: CmdSQL, At: s.pos(s.i)}
	t := s.text
	var b strings.Builder
	var params []VarUse
	qstart := s.i
	finish := func(end int) {
		text := strings.TrimSpace(t[qstart:end])
		if strings.TrimSpace(b.String()) != "" {
			c.Queries = append(c.Queries, Query{SQL: strings.TrimSpace(b.String()), Params: params, Text: text, At: s.pos(qstart), Kind: classify(text)})
		}
		b.Reset()
		params = nil
	}
	for s.i < len(t) {
		ch := t[s.i]
		switch {
		case ch == '\'' || ch == '"':
			j, err := s.quoted(s.i)
			if err != nil {
				return err
			}
			b.WriteString(t[s.i:j])
			s.i = j
		case ch == '$' && dollarTag(t, s.i) != "":
			tag := dollarTag(t, s.i)
			end := strings.Index(t[s.i+len(tag):], tag)
			if end < 0 {
				return s.errAt(s.i, "unterminated dollar-quoted string %s", tag)
			}
			j := s.i + len(tag) + end + len(tag)
			b.WriteString(t[s.i:j])
			s.i = j
		case strings.HasPrefix(t[s.i:], "--"):
			for s.i < len(t) && t[s.i] != '\n' {
				b.WriteByte(t[s.i])
				s.i++
			}
		case strings.HasPrefix(t[s.i:], "/*"):
			j, err := s.blockComment(s.i)
			if err != nil {
				return err
			}
			b.WriteString(t[s.i:j])
			s.i = j
		case ch == ':' && s.i+1 < len(t) && t[s.i+1] == ':':
			for s.i < len(t) && t[s.i] == ':' {
				b.WriteByte(':')
				s.i++
			}
		case ch == ':' && s.i+1 < len(t) && isAlpha(t[s.i+1]):
			j := s.i + 1
			for j < len(t) && (isAlpha(t[j]) || isDigit(t[j])) {
				j++
			}
			params = append(params, VarUse{Slot: s.syms.Slot(t[s.i+1 : j]), At: s.pos(s.i)})
			b.WriteByte('?')
			s.i = j
		case ch == '?':
			return s.errAt(s.i, "a ? outside quotes: encbench binds :variables as ? placeholders, so write the operator another way (for jsonb, jsonb_exists(a, b))")
		case ch == ';':
			finish(s.i)
			s.i++
			s.cmds = append(s.cmds, c)
			return nil
		case ch == '\\' && s.i+1 < len(t) && t[s.i+1] == ';':
			finish(s.i)
			s.i += 2
			qstart = s.i
		case ch == '\\':
			finish(s.i)
			return s.endWithMeta(c)
		default:
			b.WriteByte(ch)
			s.i++
		}
	}
	finish(s.i)
	if len(c.Queries) > 0 {
		s.cmds = append(s.cmds, c)
	}
	return nil
}

// endWithMeta ends an SQL command at a backslash: \gset and \aset belong
// to it; another meta command starts after it.
func (s *scanner) endWithMeta(c Command) error {
	start := s.i
	j := s.i + 1
	for j < len(s.text) && isAlpha(s.text[j]) {
		j++
	}
	name := strings.ToLower(s.text[s.i+1 : j])
	if name != "gset" && name != "aset" {
		if len(c.Queries) > 0 {
			s.cmds = append(s.cmds, c)
		}
		return nil
	}
	if len(c.Queries) == 0 {
		return s.errAt(start, `\%s ends an SQL command, and none comes before it`, name)
	}
	src := s.metaLine()
	ws, at := words(src)
	if len(ws) > 2 {
		return &ParseError{File: s.file, At: src.at(at[2]), Msg: fmt.Sprintf(`\%s takes at most one argument, a prefix for the variables`, name)}
	}
	c.Gset, c.Aset = true, name == "aset"
	if len(ws) == 2 {
		if !validName(ws[1]) {
			return &ParseError{File: s.file, At: src.at(at[1]), Msg: fmt.Sprintf("invalid variable prefix %q", ws[1])}
		}
		c.Prefix = ws[1]
	}
	s.cmds = append(s.cmds, c)
	return nil
}

// quoted is the end of the quoted string or identifier at i: ” and ""
// double the quote; an E” string also escapes with a backslash.
func (s *scanner) quoted(i int) (int, error) {
	t := s.text
	q := t[i]
	escapes := q == '\'' && i > 0 && (t[i-1] == 'E' || t[i-1] == 'e') && (i < 2 || !isAlpha(t[i-2]) && !isDigit(t[i-2]))
	for j := i + 1; j < len(t); j++ {
		switch {
		case escapes && t[j] == '\\':
			j++
		case t[j] == q && j+1 < len(t) && t[j+1] == q:
			j++
		case t[j] == q:
			return j + 1, nil
		}
	}
	what := "string"
	if q == '"' {
		what = "quoted identifier"
	}
	return 0, s.errAt(i, "unterminated %s", what)
}

func (s *scanner) blockComment(i int) (int, error) {
	depth := 0
	t := s.text
	for j := i; j+1 < len(t); j++ {
		switch {
		case t[j] == '/' && t[j+1] == '*':
			depth++
			j++
		case t[j] == '*' && t[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, s.errAt(i, "unterminated /* comment")
}

// dollarTag is the $tag$ that opens a dollar-quoted string at i, or "".
func dollarTag(t string, i int) string {
	if i > 0 && (isAlpha(t[i-1]) || isDigit(t[i-1])) {
		return ""
	}
	j := i + 1
	if j < len(t) && isDigit(t[j]) {
		return "" // $1 is a parameter
	}
	for j < len(t) && (isAlpha(t[j]) || isDigit(t[j])) {
		j++
	}
	if j < len(t) && t[j] == '$' {
		return t[i : j+1]
	}
	return ""
}

func classify(sql string) QueryKind {
	w := strings.ToLower(strings.TrimLeft(sql, " \t\r\n("))
	if k := strings.IndexFunc(w, func(r rune) bool { return !(r >= 'a' && r <= 'z') }); k >= 0 {
		w = w[:k]
	}
	switch w {
	case "select", "show", "values", "table", "with":
		return Read
	case "insert", "update", "delete", "replace", "merge", "upsert":
		return Write
	}
	return Other
}

// resolveIfs matches \if, \elif, \else and \endif and sets their jumps.
func (s *scanner) resolveIfs() error {
	type frame struct{ last []int }
	var stack []*frame
	for k := range s.cmds {
		c := &s.cmds[k]
		switch c.Kind {
		case CmdIf:
			stack = append(stack, &frame{last: []int{k}})
		case CmdElif, CmdElse:
			if len(stack) == 0 {
				return &ParseError{File: s.file, At: c.At, Msg: fmt.Sprintf(`\%s without a matching \if`, kindName(c.Kind))}
			}
			f := stack[len(stack)-1]
			prev := f.last[len(f.last)-1]
			if s.cmds[prev].Kind == CmdElse {
				return &ParseError{File: s.file, At: c.At, Msg: fmt.Sprintf(`\%s after \else`, kindName(c.Kind))}
			}
			s.cmds[prev].Next = k
			f.last = append(f.last, k)
		case CmdEndif:
			if len(stack) == 0 {
				return &ParseError{File: s.file, At: c.At, Msg: `\endif without a matching \if`}
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if prev := f.last[len(f.last)-1]; s.cmds[prev].Kind != CmdElse {
				s.cmds[prev].Next = k
			}
			for _, b := range f.last[1:] {
				s.cmds[b].End = k
			}
		}
	}
	if len(stack) > 0 {
		return &ParseError{File: s.file, At: s.cmds[stack[len(stack)-1].last[0]].At, Msg: `\if without a matching \endif`}
	}
	return nil
}

func kindName(k CmdKind) string {
	return map[CmdKind]string{CmdIf: "if", CmdElif: "elif", CmdElse: "else", CmdEndif: "endif"}[k]
}
