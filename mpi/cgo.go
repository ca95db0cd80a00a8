//go:build cgo && !nompi

package mpi

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"strconv"
	"unsafe"
)

// Values of the MPI library in use, read once: they are constants or
// link-time addresses, valid before MPI_Init.
var (
	cSuccess     = C.lmdbio_success()
	cErrInStatus = C.lmdbio_err_in_status()
	cErrPending  = C.lmdbio_err_pending()
	cAnySource   = C.lmdbio_any_source()
	cAnyTag      = C.lmdbio_any_tag()
	cUndefined   = C.lmdbio_undefined()
	cCommNull    = C.lmdbio_comm_null()
	cByte        = C.lmdbio_type_byte()
)

// mpiError turns a failed return code into an *Error with MPI's message.
func mpiError(op string, rc C.int) error {
	if rc == cSuccess {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Msg: errorString(rc)}
}

// errorString wraps MPI_Error_string.
func errorString(rc C.int) string {
	n := C.lmdbio_max_error_string()
	buf := (*C.char)(C.malloc(C.size_t(n) + 1))
	defer C.free(unsafe.Pointer(buf))
	var l C.int
	if C.MPI_Error_string(rc, buf, &l) != cSuccess || l <= 0 {
		return "MPI error code " + strconv.Itoa(int(rc))
	}
	return C.GoStringN(buf, l)
}

// sendPtr returns the address of b for MPI, or a static C address when b is
// empty: &b[0] of an empty slice would panic, and NULL upsets some MPIs.
func sendPtr[T any](b []T) unsafe.Pointer {
	if len(b) == 0 {
		return C.lmdbio_empty_send()
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// recvPtr is sendPtr for receive buffers; the empty address differs from
// sendPtr's so MPI never sees aliased send and receive buffers.
func recvPtr[T any](b []T) unsafe.Pointer {
	if len(b) == 0 {
		return C.lmdbio_empty_recv()
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

// cInts converts byte counts or displacements to C ints in units of block
// bytes (blockSize has checked that they divide and fit).
func cInts(vals []int, block int) []C.int {
	out := make([]C.int, len(vals))
	for i, v := range vals {
		out[i] = C.int(v / block)
	}
	return out
}

// intsPtr returns the base of a C int slice, or nil when empty (only for
// arrays MPI ignores on this rank).
func intsPtr(v []C.int) *C.int {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

// cThreadLevel maps a ThreadLevel to MPI's constant.
func cThreadLevel(l ThreadLevel) C.int {
	switch l {
	case ThreadSingle:
		return C.lmdbio_thread_single()
	case ThreadFunneled:
		return C.lmdbio_thread_funneled()
	case ThreadSerialized:
		return C.lmdbio_thread_serialized()
	}
	return C.lmdbio_thread_multiple()
}

// goThreadLevel maps MPI's constant back to a ThreadLevel.
func goThreadLevel(l C.int) ThreadLevel {
	switch l {
	case C.lmdbio_thread_single():
		return ThreadSingle
	case C.lmdbio_thread_funneled():
		return ThreadFunneled
	case C.lmdbio_thread_serialized():
		return ThreadSerialized
	}
	return ThreadMultiple
}

// cOp maps an Op to MPI's handle.
func cOp(o Op) (C.MPI_Op, bool) {
	switch o {
	case Sum:
		return C.lmdbio_op_sum(), true
	case Max:
		return C.lmdbio_op_max(), true
	case Min:
		return C.lmdbio_op_min(), true
	}
	return C.lmdbio_op_sum(), false
}

// cRank maps AnySource to MPI's value.
func cRank(r int) C.int {
	if r == AnySource {
		return cAnySource
	}
	return C.int(r)
}

// cTag maps AnyTag to MPI's value.
func cTag(t int) C.int {
	if t == AnyTag {
		return cAnyTag
	}
	return C.int(t)
}

// goStatus converts an MPI_Status of a byte message.
func goStatus(st *C.MPI_Status) (Status, error) {
	var n C.int
	if rc := C.MPI_Get_count(st, cByte, &n); rc != cSuccess {
		return Status{}, mpiError("MPI_Get_count", rc)
	}
	return Status{
		Source: int(C.lmdbio_status_source(st)),
		Tag:    int(C.lmdbio_status_tag(st)),
		Count:  int(n),
	}, nil
}

// cIntArrays are int arrays in C memory, for MPI calls that read them after
// returning (non-blocking collectives).
type cIntArrays struct {
	base unsafe.Pointer
	n    int // ints per array
}

// cArrays copies every list of vals, divided by its block size, into C
// memory: n ints each, one array after another.
func cArrays(n int, vals [][]int, blocks []int) cIntArrays {
	a := cIntArrays{base: C.malloc(C.size_t(max(1, n*len(vals)) * C.sizeof_int)), n: n}
	all := unsafe.Slice((*C.int)(a.base), n*len(vals))
	for i, vs := range vals {
		for j, v := range vs {
			all[i*n+j] = C.int(v / blocks[i])
		}
	}
	return a
}

// at returns the base of array i.
func (a cIntArrays) at(i int) *C.int {
	return (*C.int)(unsafe.Add(a.base, i*a.n*C.sizeof_int))
}

func (a cIntArrays) free() { C.free(a.base) }
