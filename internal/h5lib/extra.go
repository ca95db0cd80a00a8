//go:build cgo

package h5lib

// The libhdf5 calls that gonum.org/v1/hdf5 does not wrap, on its
// identifiers (ID()). The flags below are the binding's own (cgoflags.go),
// so this file builds wherever the binding does; elsewhere set CGO_CFLAGS
// and CGO_LDFLAGS, which reach both.

/*
#cgo LDFLAGS: -lhdf5
#cgo darwin CFLAGS: -I/usr/local/include
#cgo darwin LDFLAGS: -L/usr/local/lib
#cgo linux,!arm64 CFLAGS: -I/usr/local/include -I/usr/lib/x86_64-linux-gnu/hdf5/serial/include
#cgo linux,!arm64 LDFLAGS: -L/usr/local/lib -L/usr/lib/x86_64-linux-gnu/hdf5/serial
#cgo linux,arm64 CFLAGS: -I/usr/local/include -I/usr/lib/aarch64-linux-gnu/hdf5/serial/include
#cgo linux,arm64 LDFLAGS: -L/usr/local/lib -L/usr/lib/aarch64-linux-gnu/hdf5/serial
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

#if !H5_VERSION_GE(1, 10, 5)
#error "lmdbio needs libhdf5 1.10.5 or newer (H5Dget_chunk_info_by_coord)"
#endif

// lmdbio_no_file_locking sets HDF5_USE_FILE_LOCKING=FALSE for the moment
// libhdf5's file interface initialises (it reads the variable once, then),
// unless the user has set it.
static void lmdbio_no_file_locking(void) {
	unsigned intent;
	if (getenv("HDF5_USE_FILE_LOCKING") != NULL)
		return;
	setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
	H5Fget_intent(H5I_INVALID_HID, &intent); // fails, after initialising H5F
	unsetenv("HDF5_USE_FILE_LOCKING");
}

typedef struct { char *buf; size_t cap, len; } lmdbio_stack;

static herr_t lmdbio_walk(unsigned n, const H5E_error2_t *e, void *data) {
	lmdbio_stack *s = data;
	int k;
	if (s->len >= s->cap)
		return 0;
	k = snprintf(s->buf + s->len, s->cap - s->len, "%s\n", e->desc ? e->desc : "");
	if (k > 0)
		s->len += (size_t)k;
	if (s->len > s->cap)
		s->len = s->cap;
	return 0;
}

// lmdbio_error_stack writes the descriptions on libhdf5's error stack,
// the API function's first, one per line, and empties the stack. Its
// records hold libhdf5's error classes until the next call on the thread
// clears them; when none comes, as after an H5Fopen that failed, libhdf5's
// exit handler (H5close, on another thread in a C or Python process)
// cannot release them and prints "HDF5: infinite loop closing library".
static size_t lmdbio_error_stack(char *buf, size_t cap) {
	lmdbio_stack s = {buf, cap, 0};
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, lmdbio_walk, &s);
	H5Eclear2(H5E_DEFAULT);
	return s.len;
}
*/
import "C"

import (
	"strings"

	"gonum.org/v1/hdf5"
)

// libError captures libhdf5's error stack for the call op that just failed.
// It must run on the HDF5 goroutine before any other libhdf5 call.
func libError(op string) error { return &Error{Op: op, Stack: errorStack()} }

// LastError returns what libhdf5 says about the call op that just failed,
// for code that calls gonum.org/v1/hdf5 inside Do (whose errors say only
// "code -1"). Call it inside the same Do, before any other libhdf5 call.
func LastError(op string) error { return libError(op) }

// maxRank is H5S_MAX_RANK.
const maxRank = 32

func disableFileLocking() { C.lmdbio_no_file_locking() }

// ErrorDepth is the number of records on libhdf5's error stack of the
// HDF5 goroutine's thread (H5Eget_num, which leaves them there): 0 once
// every failure was reported. For tests.
func ErrorDepth() int {
	var n C.ssize_t
	Do(func() error {
		n = C.H5Eget_num(C.H5E_DEFAULT)
		return nil
	})
	return int(n)
}

// errorStack returns the descriptions libhdf5's last failed call left on
// its error stack (H5Ewalk2), the API function's first.
func errorStack() []string {
	var buf [4096]C.char
	n := C.lmdbio_error_stack(&buf[0], C.size_t(len(buf)))
	s := C.GoStringN(&buf[0], C.int(n))
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
}

// datasetOffset is the file offset of a contiguous dataset's data
// (H5Dget_offset), -1 when no storage is allocated or the layout has none.
func datasetOffset(dset int64) int64 {
	a := C.H5Dget_offset(C.hid_t(dset))
	if a == C.HADDR_UNDEF || a > 1<<62 {
		return -1
	}
	return int64(a)
}

// storageSize is the number of bytes the dataset's data take in the file
// (H5Dget_storage_size).
func storageSize(dset int64) int64 { return int64(C.H5Dget_storage_size(C.hid_t(dset))) }

// numChunks is the number of allocated chunks (H5Dget_num_chunks).
func numChunks(dset int64) (int64, error) {
	// libhdf5 1.10 wants a dataspace here, though it does not use it.
	space := C.H5Dget_space(C.hid_t(dset))
	if space < 0 {
		return 0, libError("H5Dget_space")
	}
	defer C.H5Sclose(space)
	var n C.hsize_t
	if C.H5Dget_num_chunks(C.hid_t(dset), space, &n) < 0 {
		return 0, libError("H5Dget_num_chunks")
	}
	return int64(n), nil
}

// chunkAt describes the chunk that starts at element coordinates start
// (H5Dget_chunk_info_by_coord); off is -1 when it is not allocated.
func chunkAt(dset int64, start []uint64) (off, size int64, mask uint32, err error) {
	var (
		m    C.uint
		addr C.haddr_t
		sz   C.hsize_t
	)
	c := make([]C.hsize_t, len(start))
	for i, v := range start {
		c[i] = C.hsize_t(v)
	}
	if C.H5Dget_chunk_info_by_coord(C.hid_t(dset), &c[0], &m, &addr, &sz) < 0 {
		return 0, 0, 0, libError("H5Dget_chunk_info_by_coord")
	}
	if addr == C.HADDR_UNDEF || addr > 1<<62 {
		return -1, 0, 0, nil
	}
	return int64(addr), int64(sz), uint32(m), nil
}

// creation reads a dataset's creation properties (H5Dget_create_plist):
// layout, chunk shape, filter pipeline, external files.
func creation(dset int64) (layout Layout, chunk []int64, filters []Filter, external int, err error) {
	p := C.H5Dget_create_plist(C.hid_t(dset))
	if p < 0 {
		return 0, nil, nil, 0, libError("H5Dget_create_plist")
	}
	defer C.H5Pclose(p)
	switch C.H5Pget_layout(p) {
	case C.H5D_COMPACT:
		layout = Compact
	case C.H5D_CONTIGUOUS:
		layout = Contiguous
	case C.H5D_CHUNKED:
		layout = Chunked
	case C.H5D_VIRTUAL:
		layout = Virtual
	default:
		return 0, nil, nil, 0, libError("H5Pget_layout")
	}
	if layout == Chunked {
		var dims [maxRank]C.hsize_t
		n := C.H5Pget_chunk(p, maxRank, &dims[0])
		if n < 0 {
			return 0, nil, nil, 0, libError("H5Pget_chunk")
		}
		for _, d := range dims[:n] {
			chunk = append(chunk, int64(d))
		}
	}
	nf := C.H5Pget_nfilters(p)
	if nf < 0 {
		return 0, nil, nil, 0, libError("H5Pget_nfilters")
	}
	for i := range int(nf) {
		f, err := filterAt(p, i)
		if err != nil {
			return 0, nil, nil, 0, err
		}
		filters = append(filters, f)
	}
	if external = int(C.H5Pget_external_count(p)); external < 0 {
		return 0, nil, nil, 0, libError("H5Pget_external_count")
	}
	return layout, chunk, filters, external, nil
}

// filterAt reads filter i of a creation property list (H5Pget_filter2) and
// whether this libhdf5 can decode it (H5Zfilter_avail, H5Zget_filter_info).
func filterAt(p C.hid_t, i int) (Filter, error) {
	var (
		flags, config C.uint
		params        [16]C.uint
		nparams       = C.size_t(len(params))
		name          [256]C.char
	)
	id := C.H5Pget_filter2(p, C.uint(i), &flags, &nparams, &params[0], C.size_t(len(name)), &name[0], &config)
	if id < 0 {
		return Filter{}, libError("H5Pget_filter2")
	}
	f := Filter{ID: int(id), Name: C.GoString(&name[0]), Optional: flags&C.H5Z_FLAG_OPTIONAL != 0}
	for _, v := range params[:min(nparams, C.size_t(len(params)))] {
		f.Params = append(f.Params, uint32(v))
	}
	if C.H5Zfilter_avail(id) > 0 {
		var cfg C.uint
		f.LibDecodes = C.H5Zget_filter_info(id, &cfg) >= 0 && cfg&C.H5Z_FILTER_CONFIG_DECODE_ENABLED != 0
	}
	return f, nil
}

// describeType reads an HDF5 datatype: class, size, byte order, sign, and
// the base and dimensions of arrays, enums and variable-length types.
func describeType(t int64) (Type, error) {
	id := C.hid_t(t)
	size := C.H5Tget_size(id)
	if size == 0 {
		return Type{}, libError("H5Tget_size")
	}
	// Class follows H5T_class_t's order.
	cls := C.H5Tget_class(id)
	if cls < C.H5T_INTEGER || cls > C.H5T_ARRAY {
		return Type{}, libError("H5Tget_class")
	}
	typ := Type{Class: Class(cls), Size: int64(size)}
	switch cls {
	case C.H5T_INTEGER:
		typ.Signed = C.H5Tget_sign(id) == C.H5T_SGN_2
	case C.H5T_STRING:
		typ.VarString = C.H5Tis_variable_str(id) > 0
	case C.H5T_ARRAY:
		var dims [maxRank]C.hsize_t
		n := C.H5Tget_array_ndims(id)
		if n < 0 || n > maxRank || C.H5Tget_array_dims2(id, &dims[0]) < 0 {
			return Type{}, libError("H5Tget_array_dims2")
		}
		for _, d := range dims[:n] {
			typ.Dims = append(typ.Dims, int64(d))
		}
	}
	switch typ.Class {
	case Integer, Float, Bitfield:
		typ.BigEndian = C.H5Tget_order(id) == C.H5T_ORDER_BE
	case Enum, Array, VarLen:
		super := C.H5Tget_super(id)
		if super < 0 {
			return Type{}, libError("H5Tget_super")
		}
		defer C.H5Tclose(super)
		base, err := describeType(int64(super))
		if err != nil {
			return Type{}, err
		}
		typ.Base = &base
	}
	return typ, nil
}

// chunkIndexType says how a chunked dataset indexes its chunks
// (H5Dget_chunk_index_type).
func chunkIndexType(dset int64) (ChunkIndex, error) {
	var t C.H5D_chunk_index_t
	if C.H5Dget_chunk_index_type(C.hid_t(dset), &t) < 0 {
		return 0, libError("H5Dget_chunk_index_type")
	}
	return ChunkIndex(t), nil
}

// objectAddr is the address of an object's header, relative to the file's
// base address (H5Oget_info2).
func objectAddr(obj int64) (uint64, error) {
	var info C.H5O_info_t
	if C.H5Oget_info2(C.hid_t(obj), &info, C.H5O_INFO_BASIC) < 0 {
		return 0, libError("H5Oget_info2")
	}
	return uint64(info.addr), nil
}

// SetShuffle adds the shuffle filter to a dataset creation property list
// (H5Pset_shuffle). Call it inside Do.
func SetShuffle(p *hdf5.PropList) error {
	if C.H5Pset_shuffle(C.hid_t(p.ID())) < 0 {
		return libError("H5Pset_shuffle")
	}
	return nil
}
