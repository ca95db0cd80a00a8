//go:build cgo

package main

// #include <stdlib.h>
// #include "lmdbio.h"
import "C"

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// The statuses of include/lmdbio.h.
const (
	statusOK         = int(C.LMDBIO_OK)
	statusEndOfEpoch = int(C.LMDBIO_END_OF_EPOCH)
	statusDone       = int(C.LMDBIO_DONE)
	errHandle        = int(C.LMDBIO_ERR_HANDLE)
	errArgument      = int(C.LMDBIO_ERR_ARGUMENT)
	errBusy          = int(C.LMDBIO_ERR_BUSY)
	errVersion       = int(C.LMDBIO_ERR_VERSION)
	errState         = int(C.LMDBIO_ERR_STATE)
	errLaunch        = int(C.LMDBIO_ERR_LAUNCH)
	errInput         = int(C.LMDBIO_ERR_INPUT)
	errRuntime       = int(C.LMDBIO_ERR_RUNTIME)
	errInternal      = int(C.LMDBIO_ERR_INTERNAL)
)

// statuses is the status the C caller sees for each kind of failure: the
// one place where a failure.Kind becomes a status of lmdbio.h.
var statuses = map[failure.Kind]int{
	failure.Argument: errArgument,
	failure.Input:    errInput,
	failure.Launch:   errLaunch,
	failure.Runtime:  errRuntime,
	failure.Internal: errInternal,
}

// callerError is a mistake in the C caller's use of the library that
// lmdbio.h names more finely than an argument: a bad or busy handle, a
// header of another ABI version, a call before lmdbio_init or after
// lmdbio_finalize. Its Kind is failure.Argument; its status its own.
type callerError struct {
	status int
	err    error
}

func (e *callerError) Error() string             { return e.err.Error() }
func (e *callerError) Unwrap() error             { return e.err }
func (e *callerError) FailureKind() failure.Kind { return failure.Argument }

// failf returns a callerError with one of the statuses that no Kind maps
// to (errHandle, errBusy, errVersion, errState). Other failures are marked
// with their failure.Kind where they are made.
func failf(status int, format string, args ...any) error {
	return &callerError{status: status, err: fmt.Errorf(format, args...)}
}

// statusOf maps an error to the status the C caller sees.
func statusOf(err error) int {
	var ce *callerError
	switch {
	case err == nil:
		return statusOK
	case errors.As(err, &ce):
		return ce.status
	}
	return statuses[failure.KindOf(err)]
}

// call runs f for an exported function: its error, or a panic, becomes a
// negative status and a one-line message in *msg (malloc'ed, for the C
// side to keep or free). A fault on a bad pointer the caller handed in
// becomes a panic too (SetPanicOnFault), so it is caught like one.
func call(msg **C.char, f func() (int, error)) (status C.int) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			status = C.int(statuses[failure.Internal])
			setMessage(msg, fmt.Sprintf("internal error in lmdbio (please report it): %v", r))
		}
	}()
	st, err := f()
	if err != nil {
		if st >= 0 {
			st = statusOf(err)
		}
		setMessage(msg, err.Error())
	}
	return C.int(st)
}

// setMessage stores s, on one line, in *msg.
func setMessage(msg **C.char, s string) {
	if msg == nil {
		return
	}
	if *msg != nil {
		C.free(unsafePointer(*msg))
	}
	*msg = C.CString(strings.ReplaceAll(s, "\n", " "))
}
