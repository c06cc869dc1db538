// Package errs classifies failures into the exit codes of design.md:
// 2 for bad usage or input, 1 for runtime failures.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// UsageError marks a problem with what the user asked for (exit code 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage builds a UsageError from a format string.
func Usage(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitCode maps an error to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var u *UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// OneLine is err written on one line, as encbench's errors are: drivers
// put each host they tried, or each part of a server's message, on a line
// of its own. It unwraps to err.
func OneLine(err error) error {
	if err == nil {
		return nil
	}
	return oneLine{err}
}

type oneLine struct{ err error }

func (e oneLine) Error() string {
	msg := strings.ReplaceAll(e.err.Error(), ":\n", ": ")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
}
func (e oneLine) Unwrap() error { return e.err }
