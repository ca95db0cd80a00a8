//go:build cgo

package main

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include <stdint.h>
// #include "lmdbio.h"
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// The functions abi.c calls, one per public C function. Each runs inside
// call, so it returns a status and, on failure, a message in *msg.

//export lmdbioGoInit
func lmdbioGoInit(headerABI, libraryABI C.int, version *C.char, ownsMPI *C.int, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		owns, err := initialise(int(headerABI), int(libraryABI), C.GoString(version))
		if owns {
			*ownsMPI = 1
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
		t, err := job()
		if err != nil {
			return 0, err
		}
		*out = C.lmdbio_topology{rank: C.int(t.Rank), size: C.int(t.Size), node: C.int(t.Node),
			nodes: C.int(t.Nodes), local_rank: C.int(t.LocalRank), local_size: C.int(t.LocalSize)}
		return 0, nil
	})
}

//export lmdbioGoOpen
func lmdbioGoOpen(path, options *C.char, haveOut C.int, out *C.uintptr_t, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if path == nil || haveOut == 0 {
			return errArgument, fmt.Errorf("lmdbio_open: path and out must not be NULL")
		}
		id, err := open(C.GoString(path), C.GoString(options))
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
			epochs: C.int64_t(h.epochs), batch: C.int64_t(h.batch)}
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

// open opens a loader for every rank and registers its handle. Bad options
// are agreed on first, so that no rank enters the collective loader.Open
// while another has refused its options.
func open(path, options string) (uintptr, error) {
	t, err := job()
	if err != nil {
		return 0, err
	}
	opt, err := parseOptions(options)
	if err != nil {
		err = failf(errArgument, "%v", err)
	}
	if err = agree(t.World, err); err != nil {
		return 0, err
	}
	opt.Topology = t
	ld, err := loader.Open(path, opt)
	if err != nil {
		return 0, withPath(path, err)
	}
	h := &handle{src: ld, path: path, batch: opt.Batch, epochs: opt.Epochs}
	// The loader's defaults for what the caller left out.
	if h.batch == 0 {
		h.batch = defaultBatch
	}
	h.epochs = max(h.epochs, 1)
	return register(h), nil
}

// defaultBatch is loader.Options.Batch's default.
const defaultBatch = 64

// agree returns err on the ranks that had one and, on the others, an error
// naming the first rank that failed. Collective over world.
func agree(world *mpi.Comm, err error) error {
	first := int64(world.Size())
	if err != nil {
		first = int64(world.Rank())
	}
	out := make([]int64, 1)
	if e := world.AllreduceInt64([]int64{first}, out, mpi.Min); e != nil {
		return e
	}
	switch {
	case err != nil:
		return err
	case out[0] < int64(world.Size()):
		return failf(errArgument, "rank %d refused its options", out[0])
	}
	return nil
}

// allreduceSum replaces values by their sums over all ranks, modulo 2^64.
func allreduceSum(values []uint64) error {
	t, err := job()
	if err != nil {
		return err
	}
	mine := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(mine[8*i:], v)
	}
	all := make([]byte, len(mine)*t.Size)
	if err := t.World.Allgather(mine, all); err != nil {
		return err
	}
	for i := range values {
		values[i] = 0
		for r := range t.Size {
			values[i] += binary.LittleEndian.Uint64(all[len(mine)*r+8*i:])
		}
	}
	return nil
}
