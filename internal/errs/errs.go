// Package errs classifies failures into the exit codes of design.md:
// 2 for bad usage or input, 1 for runtime failures.
package errs

import (
	"errors"
	"fmt"
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
