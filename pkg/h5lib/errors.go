package h5lib

import (
	"errors"
	"strings"
)

// ErrLibrary marks the failures libhdf5 reports.
var ErrLibrary = errors.New("libhdf5")

// Error is a failed libhdf5 call with the descriptions libhdf5 left on its
// error stack, the API function's first and the innermost last.
type Error struct {
	Op    string // the call that failed, e.g. "H5Fopen"
	Stack []string
}

// Error returns the innermost description, which says what is wrong (the
// outer ones only say which call failed), e.g. "truncated file: eof = 96,
// sblock->base_addr = 0, stored_eof = 2048".
func (e *Error) Error() string {
	for i := len(e.Stack) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(e.Stack[i]); s != "" {
			return s
		}
	}
	return e.Op + " failed"
}

func (e *Error) Is(target error) bool { return target == ErrLibrary }

// libError captures libhdf5's error stack for the call op that just failed.
// It must run on the HDF5 goroutine before any other libhdf5 call.
func libError(op string) error { return &Error{Op: op, Stack: errorStack()} }

// LastError returns what libhdf5 says about the call op that just failed,
// for code that calls gonum.org/v1/hdf5 inside Do (whose errors say only
// "code -1"). Call it inside the same Do, before any other libhdf5 call.
func LastError(op string) error { return libError(op) }
