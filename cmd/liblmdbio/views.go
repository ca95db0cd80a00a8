//go:build cgo

package main

// #include <stdlib.h>
// #include "lmdbio.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/lmdbio/lmdbio/pkg/loader"
)

// views holds the C arrays an lmdbio_batch points to: they live in C memory,
// because C keeps them after the call returns, and are reused from batch to
// batch.
type views struct {
	cap       int
	records   unsafe.Pointer // int64_t[cap]
	keys      unsafe.Pointer // const uint8_t *[cap]
	keyLens   unsafe.Pointer // size_t[cap]
	values    unsafe.Pointer // const uint8_t *[cap]
	valueLens unsafe.Pointer // size_t[cap]
	labels    unsafe.Pointer // const uint8_t *[cap]
	labelLens unsafe.Pointer // size_t[cap]

	batch loader.Batch
	has   bool // batch is a batch (not the end of an epoch)
	// pins keeps the bytes of the batch in place while C holds pointers
	// to them. Views into shared memory or liblmdb's map are not Go
	// memory and need no pin (Pin does nothing for them); this is for
	// views into Go memory a loader might hand out.
	pins runtime.Pinner
}

// release forgets the last batch.
func (v *views) release() {
	v.pins.Unpin()
	v.batch, v.has = loader.Batch{}, false
}

// fill takes b as the current batch and writes its views into the arrays.
func (v *views) fill(b loader.Batch) error {
	n := len(b.Keys)
	if b.Values != nil && len(b.Values) != n || len(b.Records) != n || b.Labels != nil && len(b.Labels) != n {
		return fmt.Errorf("loader returned %d keys, %d values, %d labels and %d record numbers", n, len(b.Values), len(b.Labels), len(b.Records))
	}
	if err := v.grow(n); err != nil {
		return err
	}
	// The pointer arrays are written as uintptr: C memory, which Go's write
	// barrier must not see. A store of an unsafe.Pointer would have the
	// barrier look at the slot's old value, a pointer of an earlier batch
	// into Go memory (the prep stage's buffers) that may since have been
	// freed: a fatal "bad pointer in Go heap".
	records := cArray[C.int64_t](v.records, n)
	keys, keyLens := cArray[uintptr](v.keys, n), cArray[C.size_t](v.keyLens, n)
	values, valueLens := cArray[uintptr](v.values, n), cArray[C.size_t](v.valueLens, n)
	labels, labelLens := cArray[uintptr](v.labels, n), cArray[C.size_t](v.labelLens, n)
	for i := range n {
		records[i] = C.int64_t(b.Records[i])
		keys[i], keyLens[i] = uintptr(v.pin(b.Keys[i])), C.size_t(len(b.Keys[i]))
		values[i], valueLens[i], labels[i], labelLens[i] = 0, 0, 0, 0
		if b.Values != nil { // nil with prep: the samples are b.Images
			values[i], valueLens[i] = uintptr(v.pin(b.Values[i])), C.size_t(len(b.Values[i]))
		}
		if b.Labels != nil {
			labels[i], labelLens[i] = uintptr(v.pin(b.Labels[i])), C.size_t(len(b.Labels[i]))
		}
	}
	v.pin(b.Images)
	if len(b.Classes) > 0 {
		v.pins.Pin(&b.Classes[0])
	}
	v.batch, v.has = b, true
	return nil
}

// pin returns the address of p's bytes, pinned if they are Go memory.
func (v *views) pin(p []byte) unsafe.Pointer {
	ptr := dataPointer(p)
	if ptr != nil && len(p) > 0 {
		v.pins.Pin(ptr)
	}
	return ptr
}

// write fills out with the current batch (count 0 and NULL arrays when
// there is none).
func (v *views) write(out *C.lmdbio_batch) {
	*out = C.lmdbio_batch{}
	if !v.has {
		return
	}
	out.count = C.size_t(len(v.batch.Keys))
	out.epoch = C.int64_t(v.batch.Epoch)
	out.records = (*C.int64_t)(v.records)
	out.keys = (**C.uint8_t)(v.keys)
	out.key_lens = (*C.size_t)(v.keyLens)
	out.values = (**C.uint8_t)(v.values)
	out.value_lens = (*C.size_t)(v.valueLens)
	out.labels = (**C.uint8_t)(v.labels)
	out.label_lens = (*C.size_t)(v.labelLens)
}

// grow makes room for n views.
func (v *views) grow(n int) error {
	if n <= v.cap {
		return nil
	}
	c := max(n, 2*v.cap, 64)
	for _, a := range []struct {
		p    *unsafe.Pointer
		size uintptr
	}{{&v.records, 8}, {&v.keys, unsafe.Sizeof(unsafe.Pointer(nil))}, {&v.keyLens, unsafe.Sizeof(C.size_t(0))},
		{&v.values, unsafe.Sizeof(unsafe.Pointer(nil))}, {&v.valueLens, unsafe.Sizeof(C.size_t(0))},
		{&v.labels, unsafe.Sizeof(unsafe.Pointer(nil))}, {&v.labelLens, unsafe.Sizeof(C.size_t(0))}} {
		p := C.realloc(*a.p, C.size_t(uintptr(c)*a.size))
		if p == nil {
			return fmt.Errorf("out of memory for a batch of %d records", n)
		}
		*a.p = p
	}
	v.cap = c
	return nil
}

// free releases the arrays.
func (v *views) free() {
	v.release()
	for _, p := range []*unsafe.Pointer{&v.records, &v.keys, &v.keyLens, &v.values, &v.valueLens, &v.labels, &v.labelLens} {
		C.free(*p)
		*p = nil
	}
	v.cap = 0
}
