package oltp

import (
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/errs"
)

// sbColumns are the sbtest columns in table order.
var sbColumns = [4]string{"id", "k", "c", "pad"}

const (
	colID = iota
	colK
	colC
	colPad
)

// encSpec is --encrypt: a scheme per sbtest column ("" = plaintext).
type encSpec [4]colenc.Scheme

// defaultSchemes are used for a column named without a scheme: the id is
// looked up by equality (det), the rest only stored and returned (rnd).
var defaultSchemes = encSpec{colenc.Det, colenc.Rnd, colenc.Rnd, colenc.Rnd}

// parseEncrypt reads "id:ore,k,c,pad" (any subset; "" or "none" = plain).
func parseEncrypt(s string) (encSpec, error) {
	var e encSpec
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return e, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, scheme, hasScheme := strings.Cut(strings.TrimSpace(part), ":")
		i := columnIndex(name)
		if i < 0 {
			return e, errs.Usage("--encrypt %q: unknown column %q: use id, k, c and pad, each optionally as column:scheme (rnd, det, ore)", s, name)
		}
		if e[i] != "" {
			return e, errs.Usage("--encrypt %q names %s twice", s, name)
		}
		e[i] = defaultSchemes[i]
		if hasScheme {
			sc, err := colenc.ParseScheme(scheme)
			if err != nil {
				return e, errs.Usage("--encrypt %q: %w", s, err)
			}
			e[i] = sc
		}
	}
	switch {
	case e[colID] == colenc.Rnd:
		return e, errs.Usage("--encrypt: id cannot be rnd (rows are found by id): use id:det or id:ore")
	case e[colC] == colenc.Ore || e[colPad] == colenc.Ore:
		return e, errs.Usage("--encrypt: ore takes integers only (id, k); c and pad take rnd or det")
	case e[colID] == colenc.Ashe || e[colC] == colenc.Ashe || e[colPad] == colenc.Ashe:
		return e, errs.Usage("--encrypt: ashe is for k (summed and incremented on the server)")
	}
	return e, nil
}

func columnIndex(name string) int {
	for i, c := range sbColumns {
		if c == name {
			return i
		}
	}
	return -1
}

// String is the canonical form stored with the data and shown in results.
func (e encSpec) String() string {
	var parts []string
	for i, sc := range e {
		if sc != "" {
			parts = append(parts, sbColumns[i]+":"+string(sc))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

func (e encSpec) any() bool { return e != encSpec{} }

// column is the colenc column of sbtest column i in table n.
func (e encSpec) column(n, i int) colenc.Column {
	return colenc.Column{Table: tableName(n), Name: sbColumns[i], Scheme: e[i]}
}

// sqlType is the stored type of column i: sysbench's when plaintext, else
// binary wide enough for the ciphertext (or the server's ORE type).
func (e encSpec) sqlType(i int, oreType string, binary func(int) string) string {
	switch e[i] {
	case "":
		return [4]string{"INTEGER", "INTEGER", "CHAR(120)", "CHAR(60)"}[i]
	case colenc.Ore:
		if oreType != "" {
			return oreType
		}
		return binary(768)
	case colenc.Ashe:
		return "BIGINT"
	}
	// Tink prefix 5, nonce or SIV 12-16, kind byte, payload, tag 16.
	return binary([4]int{64, 64, 200, 128}[i])
}

// Where a predicate on a column is evaluated.
type predicateMode int

const (
	// onServer: the server compares (plaintext, det equality, ore with the
	// server's operator class).
	onServer predicateMode = iota
	// inList: a det range becomes IN (the det ciphertexts of every value in
	// it); integer ranges of range-size values only.
	inList
	// inClient: the client reads every row and filters (rnd columns, or ore
	// where the server has no ORE type). Labelled in results.
	inClient
)

func (m predicateMode) String() string {
	return [...]string{"server", "server (IN list of det ciphertexts)", "client-side filter (full scan)"}[m]
}

// mode says where an equality (rng false) or range predicate on column i runs.
func (e encSpec) mode(i int, rng bool, oreType string) predicateMode {
	switch e[i] {
	case "":
		return onServer
	case colenc.Det:
		if rng {
			return inList
		}
		return onServer
	case colenc.Ore:
		if oreType != "" {
			return onServer
		}
	}
	return inClient
}

// predicates lists, for results, where each workload's predicate ran.
func (e encSpec) predicates(workload, oreType string) string {
	var col int
	var rng bool
	switch workload {
	case "enc_point_select", "enc_write_mix":
		col = colID
	case "enc_range_sum":
		col, rng = colID, true
	case "enc_point_select_k":
		col = colK
	case "enc_range_sum_k":
		col, rng = colK, true
	}
	return fmt.Sprintf("%s: %s", sbColumns[col], e.mode(col, rng, oreType))
}
