//go:build cgo

package main

// #include <stdint.h>
// #include <string.h>
// #include "lmdbio.h"
import "C"

import (
	"fmt"
	"unsafe"
)

// dtypes are the C enum's values of the loader's element type names.
var dtypes = map[string]C.int{"uint8": C.LMDBIO_DTYPE_UINT8, "float16": C.LMDBIO_DTYPE_FLOAT16,
	"float32": C.LMDBIO_DTYPE_FLOAT32}

//export lmdbioGoBatchImages
func lmdbioGoBatchImages(id C.uintptr_t, out *C.lmdbio_images, msg **C.char) C.int {
	return call(msg, func() (int, error) {
		if out == nil {
			return errArgument, fmt.Errorf("lmdbio_batch_images: out is NULL")
		}
		// memset, not a Go store: see writeImages.
		C.memset(unsafe.Pointer(out), 0, C.sizeof_lmdbio_images)
		h, err := acquire(uintptr(id))
		if err != nil {
			return 0, err
		}
		defer h.busy.Unlock()
		if !h.prep {
			return errArgument, fmt.Errorf("lmdbio_batch_images: the loader was opened without prep=")
		}
		if !h.views.has {
			return 0, nil
		}
		h.views.writeImages(out)
		return 0, nil
	})
}

// writeImages fills out with the current batch's tensor; fill pinned it.
// The pointers are stored as uintptr: out is the caller's memory, whose
// old values may be pointers of an earlier batch into Go memory that was
// freed since, and a Go pointer store would have the write barrier look
// at them (a fatal "bad pointer in Go heap").
func (v *views) writeImages(out *C.lmdbio_images) {
	b := v.batch
	*(*uintptr)(unsafe.Pointer(&out.data)) = uintptr(dataPointer(b.Images))
	out.bytes = C.size_t(len(b.Images))
	for i, n := range b.Shape {
		out.shape[i] = C.int64_t(n)
	}
	out.dtype = dtypes[b.DType]
	if b.Layout == "NCHW" {
		out.chw = 1
	}
	if len(b.Classes) > 0 {
		*(*uintptr)(unsafe.Pointer(&out.labels)) = uintptr(unsafe.Pointer(&b.Classes[0]))
	}
}
