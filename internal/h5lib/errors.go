package h5lib

import (
	"errors"
	"strings"
)

// ErrLibrary marks the failures libhdf5 reports.
var ErrLibrary = errors.New("libhdf5")

// ErrNotFound means a file has no dataset of the name asked for.
var ErrNotFound = errors.New("no such dataset")

// ErrNoCgo means lmdbio was built without cgo, so without libhdf5.
var ErrNoCgo = errors.New("lmdbio was built without cgo: HDF5 needs libhdf5")

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
