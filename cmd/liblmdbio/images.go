//go:build cgo

package main

// #include <stdint.h>
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
		*out = C.lmdbio_images{}
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
func (v *views) writeImages(out *C.lmdbio_images) {
	b := v.batch
	out.data = dataPointer(b.Images)
	out.bytes = C.size_t(len(b.Images))
	for i, n := range b.Shape {
		out.shape[i] = C.int64_t(n)
	}
	out.dtype = dtypes[b.DType]
	if b.Layout == "NCHW" {
		out.chw = 1
	}
	if len(b.Classes) > 0 {
		out.labels = (*C.int64_t)(unsafe.Pointer(&b.Classes[0]))
	}
}
