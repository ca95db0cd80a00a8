//go:build cgo && !nompi

package mpi

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// state is the process-wide MPI state. MPI can be initialised and finalised
// only once per process, so it lives in package variables.
var state struct {
	sync.Mutex
	initialised bool // Init succeeded
	finalised   bool // Finalize ran
	hosted      bool // the host program called MPI_Init before Init
	provided    ThreadLevel
	world       *Comm
}

// Init initialises MPI with MPI_Init_thread, asking for thread level want,
// and returns the level MPI provides (which may be lower: check it).
//
// Go programs should ask for ThreadMultiple. With a lower level the caller
// must make every MPI call, Init and Finalize included, from one goroutine
// locked to its thread with runtime.LockOSThread.
//
// If MPI is already initialised by the host program (MPI_Initialized), Init
// does not initialise again: it records that, returns the host's level
// (MPI_Query_thread) and Finalize becomes a no-op. In that case the host's
// error handlers are left alone. Init is collective over MPI_COMM_WORLD (it
// duplicates it for World). Calling Init again returns the same level; Init
// after Finalize fails.
func Init(want ThreadLevel) (provided ThreadLevel, err error) {
	state.Lock()
	defer state.Unlock()
	if state.initialised {
		return state.provided, nil
	}
	if state.finalised {
		return 0, invalid("MPI_Init_thread", "MPI was finalised and cannot be initialised again")
	}
	// MPI records the thread that initialises it as the main thread; keep
	// the whole sequence on one OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var flag C.int
	if rc := C.MPI_Initialized(&flag); rc != cSuccess {
		return 0, mpiError("MPI_Initialized", rc)
	}
	var got C.int
	if flag != 0 {
		var done C.int
		if rc := C.MPI_Finalized(&done); rc != cSuccess {
			return 0, mpiError("MPI_Finalized", rc)
		}
		if done != 0 {
			return 0, invalid("MPI_Init_thread", "the host program has already finalised MPI")
		}
		if rc := C.MPI_Query_thread(&got); rc != cSuccess {
			return 0, mpiError("MPI_Query_thread", rc)
		}
		state.hosted = true
	} else {
		if rc := C.MPI_Init_thread(nil, nil, cThreadLevel(want), &got); rc != cSuccess {
			return 0, mpiError("MPI_Init_thread", rc)
		}
		// Errors outside a communicator (datatypes, MPI_Comm_dup of world)
		// go to the handlers of world or self: return them, too.
		C.MPI_Comm_set_errhandler(C.lmdbio_comm_world(), C.lmdbio_errors_return())
		C.MPI_Comm_set_errhandler(C.lmdbio_comm_self(), C.lmdbio_errors_return())
	}
	var dup C.MPI_Comm
	if rc := C.MPI_Comm_dup(C.lmdbio_comm_world(), &dup); rc != cSuccess {
		return 0, mpiError("MPI_Comm_dup", rc)
	}
	w, err := newComm("MPI_Comm_dup", dup)
	if err != nil {
		return 0, err
	}
	w.world = true
	state.world = w
	state.provided = goThreadLevel(got)
	state.initialised = true
	return state.provided, nil
}

// Provided returns the thread level MPI provides (as Init returned it), or
// ThreadSingle before Init.
func Provided() ThreadLevel {
	state.Lock()
	defer state.Unlock()
	return state.provided
}

// InitializedByHost reports whether the host program had initialised MPI
// before Init, in which case Finalize leaves MPI to the host.
func InitializedByHost() bool {
	state.Lock()
	defer state.Unlock()
	return state.hosted
}

// Finalize calls MPI_Finalize, unless the host program initialised MPI. It
// is idempotent and does nothing before Init. Every rank must call it, after
// all its requests have completed.
func Finalize() error {
	state.Lock()
	defer state.Unlock()
	if !state.initialised || state.finalised {
		return nil
	}
	state.finalised = true
	state.initialised = false
	if state.hosted {
		return nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return mpiError("MPI_Finalize", C.MPI_Finalize())
}

// World returns the communicator of all ranks: a duplicate of
// MPI_COMM_WORLD with MPI_ERRORS_RETURN. It panics before Init or after
// Finalize, which is a programming mistake.
func World() *Comm {
	state.Lock()
	defer state.Unlock()
	if !state.initialised {
		panic("mpi: World called without a successful Init (or after Finalize)")
	}
	return state.world
}

// Abort ends every rank of the job with MPI_Abort on MPI_COMM_WORLD, and
// exits with code should MPI return (or MPI not be initialised).
func Abort(code int) {
	var flag, done C.int
	C.MPI_Initialized(&flag)
	C.MPI_Finalized(&done)
	if flag != 0 && done == 0 {
		C.MPI_Abort(C.lmdbio_comm_world(), C.int(code))
	}
	os.Exit(code)
}

// LibraryVersion returns MPI_Get_library_version, which MPI allows before
// Init. It is "" if MPI fails to tell.
func LibraryVersion() string {
	n := C.lmdbio_max_library_version_string()
	buf := (*C.char)(C.malloc(C.size_t(n) + 1))
	defer C.free(unsafe.Pointer(buf))
	var l C.int
	if C.MPI_Get_library_version(buf, &l) != cSuccess {
		return ""
	}
	// Some libraries count the terminating NUL or end with a newline.
	return strings.TrimRight(C.GoStringN(buf, l), "\x00\n ")
}
