package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Exit statuses. Every command maps its errors to these in report, and
// nowhere else.
const (
	exitOK      = 0
	exitFailure = 1 // a runtime failure
	exitUsage   = 2 // bad input or usage
)

const exitStatusHelp = `

EXIT STATUS
  0  success
  1  a runtime failure (I/O, MPI, a rank that died)
  2  bad input or usage (flags, paths, corrupt or unsupported datasets)`

// exitError carries an exit status through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a mistake on the command line (exit 2).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// usagef formats a usage error.
func usagef(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// withCode forces an exit status for err; a nil err stays nil.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// exitCode maps an error to the process exit status.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case isBadInput(err):
		return exitUsage
	default:
		return exitFailure
	}
}

// isBadInput reports errors that come from what the user handed us rather
// than from the machine: missing files, corrupt or unsupported datasets, a
// launch the MPI library cannot work with.
func isBadInput(err error) bool {
	return loader.IsBadInput(err) || errors.Is(err, topology.ErrLaunch)
}

// report prints err as the one line the user sees and returns the exit status.
func report(err error) int {
	if err == nil || errors.Is(err, errQuiet) {
		return exitCode(unquiet(err))
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "lmdbio: interrupted")
		return exitFailure
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintln(os.Stderr, "lmdbio: "+strings.TrimPrefix(msg, "lmdbio: "))
	return exitCode(err)
}

// errQuiet marks an error another rank has already reported: this rank only
// exits with the agreed status.
var errQuiet = errors.New("reported elsewhere")

type quietError struct{ code int }

func (q quietError) Error() string { return errQuiet.Error() }
func (q quietError) Is(target error) bool {
	return target == errQuiet
}

func quiet(code int) error { return quietError{code: code} }

func unquiet(err error) error {
	var q quietError
	if errors.As(err, &q) {
		return &exitError{code: q.code, err: err}
	}
	return err
}
