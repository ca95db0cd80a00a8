package hdf5

import (
	"fmt"
	"math"
	"slices"

	"github.com/lmdbio/lmdbio/internal/h5lib"
)

// fallbackBlockBytes is about the size of one libhdf5 read (a block read
// through libhdf5): large enough to amortise opening the file for it.
// maxFallbackBlock bounds a block of whole chunk rows.
const (
	fallbackBlockBytes = 4 << 20
	maxFallbackBlock   = 64 << 20
)

// Limits of what Open and Unmarshal accept.
const (
	maxRank     = 32      // H5S_MAX_RANK
	maxElemSize = 1 << 30 // bytes of one element
	maxFilters  = 32      // H5Z_MAX_NFILTERS
	maxParams   = 16
	maxString   = 4096
	// maxChunkBytes is the largest chunk HDF5 stores (4 GiB - 1).
	maxChunkBytes = 1<<32 - 1
	// maxLabelBytes bounds the labels a Source holds in memory.
	maxLabelBytes = 1 << 30
)

// plan decides how the rows of d are read: by offset, by chunk, or through
// libhdf5 and why. A dataset nothing can read is an error.
func plan(d h5lib.Dataset) (read Read, why string, err error) {
	if err := checkRows(d); err != nil {
		return 0, "", err
	}
	for _, f := range d.Filters {
		if f.ID != filterDeflate && f.ID != filterShuffle && !f.LibDecodes {
			return 0, "", badf("dataset %s: filter %s: neither lmdbio nor this libhdf5 can decode it", d.Name, f)
		}
	}
	switch {
	case d.External > 0:
		return ByLibrary, fmt.Sprintf("its data lie in %d external file(s)", d.External), nil
	case d.Layout == h5lib.Compact:
		return ByLibrary, "compact layout (the data lie in the object header)", nil
	case d.Layout == h5lib.Virtual:
		return ByLibrary, "virtual dataset (mapped from other datasets)", nil
	case d.Layout == h5lib.Contiguous:
		if d.Offset < 0 && d.Shape[0] > 0 {
			return ByLibrary, "no storage allocated (the rows read as the fill value)", nil
		}
		return ByOffset, "", nil
	case d.Layout != h5lib.Chunked:
		return 0, "", badf("dataset %s: unknown layout %v", d.Name, d.Layout)
	}
	for _, f := range d.Filters {
		if f.ID != filterDeflate && f.ID != filterShuffle {
			return ByLibrary, fmt.Sprintf("filter %s is decoded by libhdf5 only", f), nil
		}
	}
	total := gridChunks(d.Shape, d.Chunk)
	if total < 0 || total > h5lib.MaxChunks {
		return ByLibrary, fmt.Sprintf("a grid of more than %d chunks, more than lmdbio lists", h5lib.MaxChunks), nil
	}
	if d.Allocated < total {
		return ByLibrary, fmt.Sprintf("%d of %d chunks are not written (they read as the fill value)",
			total-d.Allocated, total), nil
	}
	if !h5lib.ListedFast(d.Index, d.Allocated) {
		return ByLibrary, fmt.Sprintf("its %d chunks have a %s index, which libhdf5 1.10 lists one chunk at a time "+
			"in quadratic time (lmdbio lists v1 B-trees itself)", d.Allocated, d.Index), nil
	}
	if len(d.Filters) == 0 && slices.Equal(d.Chunk[1:], d.Shape[1:]) {
		return ByOffset, "", nil
	}
	return ByChunk, "", nil
}

// checkRows checks that d has rows lmdbio can deliver: a simple dataspace
// of rank >= 1, fixed-size numeric elements, rows of at least one byte.
func checkRows(d h5lib.Dataset) error {
	switch {
	case d.Space == h5lib.Scalar:
		return badf("dataset %s is a scalar (rank 0): lmdbio reads rows along the first dimension", d.Name)
	case d.Space == h5lib.Null:
		return badf("dataset %s has a null dataspace: no data", d.Name)
	case len(d.Shape) == 0 || len(d.Shape) > maxRank:
		return badf("dataset %s has rank %d", d.Name, len(d.Shape))
	case d.Layout == h5lib.Chunked && len(d.Chunk) != len(d.Shape):
		return badf("dataset %s: chunk shape %v for rank %d", d.Name, d.Chunk, len(d.Shape))
	}
	if err := deliverable(d.Type); err != nil {
		return badf("dataset %s: element type %s: %v", d.Name, d.Type, err)
	}
	n, ok := rowBytes(d.Type.Size, d.Shape)
	if !ok {
		return badf("dataset %s: rows of %v %s are too large", d.Name, d.Shape[1:], d.Type)
	}
	if n == 0 {
		return badf("dataset %s: rows of shape %v hold no bytes", d.Name, d.Shape[1:])
	}
	return nil
}

// deliverable says whether elements of type t are fixed-size bytes with a
// meaning of their own: numbers, enums, bitfields, opaque bytes, and
// arrays of them. Strings, variable-length data, references and compound
// types are not.
func deliverable(t h5lib.Type) error {
	switch t.Class {
	case h5lib.Integer, h5lib.Float, h5lib.Bitfield, h5lib.Enum, h5lib.Opaque:
		return nil
	case h5lib.Array:
		if t.Base == nil {
			return fmt.Errorf("array without a base type")
		}
		return deliverable(*t.Base)
	}
	return fmt.Errorf("lmdbio delivers rows of fixed-size numeric elements (integers, floats, enums, bitfields, opaque bytes, arrays of them)")
}

// rowBytes is elemSize times the product of shape[1:], and whether it fits
// the limits.
func rowBytes(elemSize int64, shape []int64) (int64, bool) {
	if elemSize < 1 || elemSize > maxElemSize {
		return 0, false
	}
	n := elemSize
	for _, d := range shape[1:] {
		var ok bool
		if n, ok = mulCheck(n, d); !ok {
			return 0, false
		}
	}
	// The whole dataset must be addressable too.
	_, ok := mulCheck(n, shape[0])
	return n, ok
}

// mulCheck multiplies non-negative a and b, and says whether the product
// fits in an int64.
func mulCheck(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// gridChunks is the number of chunks that cover shape, or -1 if it
// overflows.
func gridChunks(shape, chunk []int64) int64 {
	total := int64(1)
	for i := range shape {
		if chunk[i] < 1 {
			return -1
		}
		var ok bool
		if total, ok = mulCheck(total, ceilDiv(shape[i], chunk[i])); !ok {
			return -1
		}
	}
	return total
}
