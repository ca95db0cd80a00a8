//go:build cgo

package main

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include <stdint.h>
// #include "lmdbio.h"
import "C"

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

// The functions abi.c calls, one per public C function. Each runs inside
// call, so it returns a status and, on failure, a message in *msg.

//export lmdbioGoInit
func lmdbioGoInit(headerABI, libraryABI C.int, version *C.char, atExit *C.int, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		finalize, err := initialise(int(headerABI), int(libraryABI), C.GoString(version))
		if finalize {
			*atExit = 1
		}
		return 0, err
	})
}

//export lmdbioGoFinalize
func lmdbioGoFinalize(msg **C.char) C.int {
	return call(msg, func() (int, error) { return 0, finalise() })
}

//export lmdbioGoTopology
func lmdbioGoTopology(out *C.lmdbio_topology, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if out == nil {
			return errArgument, fmt.Errorf("lmdbio_get_topology: out is NULL")
		}
		j, err := current()
		if err != nil {
			return 0, err
		}
		p := j.where()
		*out = C.lmdbio_topology{rank: C.int(p.rank), size: C.int(p.size), node: C.int(p.node),
			nodes: C.int(p.nodes), local_rank: C.int(p.local), local_size: C.int(p.localSize)}
		return 0, nil
	})
}

// lmdbioGoOpen serves lmdbio_open and lmdbio_open_resume; state is NULL
// for the first.
//
//export lmdbioGoOpen
func lmdbioGoOpen(path, options, state *C.char, haveOut C.int, out *C.uintptr_t, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if path == nil || haveOut == 0 {
			return errArgument, fmt.Errorf("lmdbio_open: path and out must not be NULL")
		}
		id, err := open(C.GoString(path), C.GoString(options), C.GoString(state))
		*out = C.uintptr_t(id)
		return 0, err
	})
}

//export lmdbioGoNext
func lmdbioGoNext(id C.uintptr_t, out *C.lmdbio_batch, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if out == nil {
			return errArgument, fmt.Errorf("lmdbio_next: batch is NULL")
		}
		*out = C.lmdbio_batch{} // a wild pointer faults here, before a batch is taken
		h, err := acquire(uintptr(id))
		if err != nil {
			return 0, err
		}
		defer h.busy.Unlock()
		st, err := h.next()
		h.views.write(out)
		return st, err
	})
}

//export lmdbioGoInfo
func lmdbioGoInfo(id C.uintptr_t, out *C.lmdbio_loader_info, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if out == nil {
			return errArgument, fmt.Errorf("lmdbio_info: out is NULL")
		}
		h, err := acquire(uintptr(id))
		if err != nil {
			return 0, err
		}
		defer h.busy.Unlock()
		*out = C.lmdbio_loader_info{records: C.int64_t(h.src.Records()), batches: C.int64_t(h.src.Rounds()),
			epochs: C.int64_t(h.epochs), batch: C.int64_t(h.batch),
			epoch: C.int64_t(h.src.Epoch())}
		return 0, nil
	})
}

//export lmdbioGoState
func lmdbioGoState(id C.uintptr_t, buf *C.char, capacity C.size_t, length *C.size_t, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if length == nil || buf == nil && capacity > 0 {
			return errArgument, fmt.Errorf("lmdbio_state: len is NULL, or buf is NULL with cap %d", capacity)
		}
		h, err := acquire(uintptr(id))
		if err != nil {
			return 0, err
		}
		defer h.busy.Unlock()
		doc, err := json.Marshal(h.src.State())
		if err != nil {
			return 0, err
		}
		*length = C.size_t(len(doc))
		switch {
		case buf == nil:
			return 0, nil // the caller asks for the length
		case uint64(capacity) <= uint64(len(doc)):
			return errArgument, fmt.Errorf("lmdbio_state: a buffer of %d bytes, the state needs %d with its NUL", capacity, len(doc)+1)
		}
		out := cArray[byte](unsafe.Pointer(buf), len(doc)+1)
		copy(out, doc)
		out[len(doc)] = 0
		return 0, nil
	})
}

//export lmdbioGoClose
func lmdbioGoClose(id C.uintptr_t, msg **C.char) C.int {
	return call(msg, func() (int, error) { return 0, closeHandle(uintptr(id)) })
}

//export lmdbioGoAllreduceSum
func lmdbioGoAllreduceSum(values *C.uint64_t, n C.size_t, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if values == nil && n > 0 {
			return errArgument, fmt.Errorf("lmdbio_allreduce_sum_u64: values is NULL")
		}
		return 0, allreduceSum(cArray[uint64](unsafe.Pointer(values), int(n)))
	})
}

// lmdbioGoAbort serves lmdbio_abort and, with atExit, the exit handler of
// a process that exits with a status other than 0: it returns only when
// there is no job to end.
//
//export lmdbioGoAbort
func lmdbioGoAbort(status C.int, what *C.char, atExit C.int, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		w := "failed"
		if what != nil {
			w = C.GoString(what)
		}
		abort(int(status), w, atExit != 0)
		return 0, nil
	})
}
