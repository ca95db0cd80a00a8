//go:build cgo

package main

// #include "lmdbio.h"
import "C"

import "unsafe"

// All pointer arithmetic on memory shared with C lives here.

func unsafePointer(p *C.char) unsafe.Pointer { return unsafe.Pointer(p) }

// cArray views n elements of C memory at p as a Go slice.
func cArray[T any](p unsafe.Pointer, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// dataPointer is the address of b's first byte (nil for an empty slice
// without backing memory).
func dataPointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
