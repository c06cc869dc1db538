package engine

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/encbench/encbench/internal/errs"
)

// ErrorKind is what a failed statement means to the runner's error policy.
type ErrorKind int

const (
	// ErrFatal is not the server refusing one transaction (a client-side
	// failure, a decryption error, a bug): the run stops.
	ErrFatal ErrorKind = iota
	// ErrSerialization and ErrDeadlock are the transient conflicts that
	// --max-tries retries with the same input, as pgbench does.
	ErrSerialization
	ErrDeadlock
	ErrLockTimeout
	ErrUniqueViolation
	// ErrServer is any other error the server reported with a code.
	ErrServer
	// ErrConnLost: the connection is gone; the transaction's fate is
	// unknown and the worker reconnects.
	ErrConnLost
)

// kindNames are the kinds' names in flags, results and summaries.
var kindNames = map[ErrorKind]string{
	ErrFatal: "fatal", ErrSerialization: "serialization", ErrDeadlock: "deadlock", ErrLockTimeout: "lock_timeout",
	ErrUniqueViolation: "unique_violation", ErrServer: "other", ErrConnLost: "connection",
}

func (k ErrorKind) String() string { return kindNames[k] }

// Retryable kinds are worth repeating unchanged: the conflict is gone once
// the other transaction has finished.
func (k ErrorKind) Retryable() bool { return k == ErrSerialization || k == ErrDeadlock }

// ServerError is a classified error: its kind and the server's own code
// (SQLSTATE, MySQL error number, MongoDB code), empty when it has none.
type ServerError struct {
	Kind ErrorKind
	Code string
}

// IgnoreSet is --ignore-errors: server errors that fail one transaction
// without stopping the run (sysbench's --mysql-ignore-errors), by code or
// by kind, or every server error.
type IgnoreSet struct {
	All   bool
	Codes []string
	Kinds []ErrorKind
}

// Ignores says whether the set lets the run go on after e. Connection
// losses have their own rule and errors without a server (ErrFatal) are
// never ignored.
func (s IgnoreSet) Ignores(e ServerError) bool {
	switch {
	case e.Kind == ErrFatal || e.Kind == ErrConnLost:
		return false
	case s.All:
		return true
	}
	return slices.Contains(s.Kinds, e.Kind) || (e.Code != "" && slices.ContainsFunc(s.Codes, func(c string) bool { return strings.EqualFold(c, e.Code) }))
}

// String is the set as --ignore-errors takes it.
func (s IgnoreSet) String() string {
	if s.All {
		return "all"
	}
	parts := slices.Clone(s.Codes)
	for _, k := range s.Kinds {
		parts = append(parts, k.String())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// ParseIgnoreSet reads --ignore-errors: all, none, or a comma-separated
// list of server error codes and kinds (serialization, deadlock,
// lock_timeout, unique_violation).
func ParseIgnoreSet(v string) (IgnoreSet, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "all":
		return IgnoreSet{All: true}, nil
	case "none", "":
		return IgnoreSet{}, nil
	}
	var s IgnoreSet
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if k, ok := kindByName(part); ok {
			s.Kinds = append(s.Kinds, k)
			continue
		}
		if part == "" || strings.IndexFunc(part, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z')
		}) >= 0 {
			return IgnoreSet{}, errs.Usage("bad --ignore-errors %q: give all, none, or codes (SQLSTATEs such as 40P01, MySQL numbers such as 1213) and kinds (serialization, deadlock, lock_timeout, unique_violation) separated by commas", v)
		}
		s.Codes = append(s.Codes, strings.ToUpper(part))
	}
	return s, nil
}

func kindByName(name string) (ErrorKind, bool) {
	for k, n := range kindNames {
		if k != ErrFatal && k != ErrServer && k != ErrConnLost && strings.EqualFold(n, name) {
			return k, true
		}
	}
	return 0, false
}

// Describe is the error for a message: what the policy saw.
func (e ServerError) Describe(err error) string {
	if e.Code == "" {
		return fmt.Sprintf("%s (%v)", e.Kind, err)
	}
	return fmt.Sprintf("%s, code %s (%v)", e.Kind, e.Code, err)
}

// TransportLost says err is the socket failing under a driver: the
// connection is gone, whatever the engine.
func TransportLost(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
