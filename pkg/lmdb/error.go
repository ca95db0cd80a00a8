package lmdb

import (
	"errors"
	"syscall"
)

// liblmdb's own error codes (MDB_NOTFOUND, MDB_MAP_FULL). env.go checks them
// against lmdb.h at compile time; they live here so the package builds
// without cgo.
const (
	codeNotFound     = -30798
	codePageNotFound = -30797
	codeCorrupted    = -30796
	codeInvalid      = -30793
	codeMapFull      = -30792
)

// Error is a failed liblmdb call.
type Error struct {
	Op   string // the C function, e.g. "mdb_put"
	Code int    // its return code: an MDB_* code (negative) or an errno
	Msg  string // mdb_strerror(Code)
}

// Error returns "Op: Msg".
func (e *Error) Error() string {
	if e.Op == "" {
		return e.Msg
	}
	return e.Op + ": " + e.Msg
}

// Is reports whether target is an *Error with the same code, so the
// sentinels below match errors from any operation.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the errno for positive (system) codes, so callers can test
// errors.Is(err, fs.ErrNotExist) and friends.
func (e *Error) Unwrap() error {
	if e.Code > 0 {
		return syscall.Errno(e.Code)
	}
	return nil
}

var (
	// ErrNotFound (MDB_NOTFOUND) is returned when a key is absent or a cursor
	// has moved past the last record.
	ErrNotFound error = &Error{Code: codeNotFound, Msg: "MDB_NOTFOUND: No matching key/data pair found"}
	// ErrMapFull (MDB_MAP_FULL) is returned when the map size is too small
	// for the data. The transaction that saw it can only be aborted; grow the
	// map with Env.SetMapSize and redo it.
	ErrMapFull error = &Error{Code: codeMapFull, Msg: "MDB_MAP_FULL: Environment mapsize limit reached"}
	// ErrNoCgo is returned by Open in builds without cgo.
	ErrNoCgo = errors.New("lmdb: built without cgo; liblmdb is not available")
)

// IsCorrupt reports whether err is liblmdb finding the database damaged or
// not an LMDB file at all (MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_INVALID).
func IsCorrupt(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code == codeCorrupted || e.Code == codePageNotFound || e.Code == codeInvalid
}

// IsMapFull reports whether err is, or wraps, MDB_MAP_FULL.
func IsMapFull(err error) bool { return errors.Is(err, ErrMapFull) }
