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

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
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

// statusError is an error that knows its status.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// failf returns an error with the given status.
func failf(status int, format string, args ...any) error {
	return &statusError{status: status, err: fmt.Errorf(format, args...)}
}

// statusOf maps an error to the status the C caller sees.
func statusOf(err error) int {
	var se *statusError
	var ae *agent.Error
	switch {
	case err == nil:
		return statusOK
	case errors.As(err, &se):
		return se.status
	case errors.As(err, &ae):
		return agentStatus(ae.Kind)
	case errors.Is(err, topology.ErrLaunch):
		return errLaunch
	case errors.Is(err, loader.ErrBadOption), errors.Is(err, loaderopts.ErrSyntax):
		return errArgument
	case loader.IsBadInput(err):
		return errInput
	}
	return errRuntime
}

// agentStatus maps the kind of an error the agent answered with.
func agentStatus(k agent.Kind) int {
	switch k {
	case agent.KindArgument:
		return errArgument
	case agent.KindInput:
		return errInput
	}
	return errRuntime
}

// agentKind is the kind of error a learner tells its agent of for a
// status: agentStatus maps it back.
func agentKind(status int) agent.Kind {
	switch status {
	case errArgument:
		return agent.KindArgument
	case errInput:
		return agent.KindInput
	}
	return agent.KindRuntime
}

// call runs f for an exported function: its error, or a panic, becomes a
// negative status and a one-line message in *msg (malloc'ed, for the C
// side to keep or free). A fault on a bad pointer the caller handed in
// becomes a panic too (SetPanicOnFault), so it is caught like one.
func call(msg **C.char, f func() (int, error)) (status C.int) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			status = C.int(errInternal)
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
