// Package colenc is client-side column encryption: the client encrypts
// chosen columns before the server sees them (Tink's deterministic
// AES-SIV, randomized AES-256-GCM, order-revealing and additively
// homomorphic schemes) and decrypts what it reads back.
package colenc

import (
	"errors"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/layer"
)

func init() { layer.Register(Layer{}) }

// Layer describes client-side column encryption.
type Layer struct{}

func (Layer) Name() string { return "colenc" }
func (Layer) Summary() string {
	return "client-side column encryption: the client encrypts chosen columns (the share of TPC-C's business columns, or a suite's column set) and the server stores and compares only ciphertext"
}
func (Layer) Where() layer.Where { return layer.InColumns }
func (Layer) Options() []layer.Option {
	return []layer.Option{
		{Key: "level", Values: []string{"20", "50", "100"}, Help: "the share of TPC-C's business columns encrypted, as report R3 chose them"},
		{Key: "set", Help: "a suite's column set, enc-NAME (its column_sets: say which columns and schemes)"},
	}
}
func (Layer) Aliases() []layer.Alias {
	return []layer.Alias{
		{Name: "colenc20", Options: map[string]string{"level": "20"}},
		{Name: "colenc50", Options: map[string]string{"level": "50"}},
		{Name: "colenc100", Options: map[string]string{"level": "100"}},
		{Name: "enc-*", Key: "set"},
	}
}
func (Layer) Engines() []string { return []string{"postgres", "mariadb"} }

// Check: one of level and set, and a set named enc-NAME.
func (Layer) Check(opts map[string]string) error {
	level, set := opts["level"], opts["set"]
	switch {
	case level == "" && set == "":
		return errors.New("give level=20|50|100 (TPC-C) or set=enc-NAME (a suite's column set), or use colencNN or enc-NAME")
	case level != "" && set != "":
		return errors.New("give level= or set=, not both")
	case set != "" && (!strings.HasPrefix(set, "enc-") || strings.IndexFunc(set, notNameRune) >= 0):
		return errors.New("set=" + set + ": a column set is named enc-NAME, of letters, digits, '-', '_' and '.'")
	}
	return nil
}

func notNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// Rank: client-side columns follow TLS and TDE in a variant's name.
func (Layer) Rank() int { return 3 }

// Settings are the column layer's options, typed: one of Level and Set.
type Settings struct {
	// Level is the share of TPC-C's business columns encrypted.
	Level int
	// Set names a suite's column set (enc-NAME).
	Set string
}

// Of reads the colenc layer among a variant's specs.
func Of(specs []layer.Spec) (Settings, bool) {
	s, ok := layer.Find(specs, "colenc")
	if !ok {
		return Settings{}, false
	}
	level, _ := strconv.Atoi(s.Options["level"])
	return Settings{Level: level, Set: s.Options["set"]}, true
}
