package h5lib

import (
	"fmt"
	"strings"
)

// Layout is how a dataset's data are stored (H5D_layout_t).
type Layout int

const (
	Compact    Layout = iota // in the object header
	Contiguous               // one extent of the file
	Chunked                  // chunks, each one extent, optionally filtered
	Virtual                  // mapped from other datasets
)

func (l Layout) String() string {
	switch l {
	case Compact:
		return "compact"
	case Contiguous:
		return "contiguous"
	case Chunked:
		return "chunked"
	case Virtual:
		return "virtual"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// Class is a datatype class (H5T_class_t).
type Class int

const (
	Integer Class = iota
	Float
	Time
	String
	Bitfield
	Opaque
	Compound
	Reference
	Enum
	VarLen
	Array
)

var classNames = [...]string{"integer", "float", "time", "string", "bitfield", "opaque", "compound",
	"reference", "enum", "variable-length", "array"}

func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Type describes a datatype as stored in the file.
type Type struct {
	Class     Class
	Size      int64 // bytes of one element
	Signed    bool  // integers
	BigEndian bool  // integers, floats, bitfields
	VarString bool  // strings
	Base      *Type // enums, arrays, variable-length types
	Dims      []int64
}

// String names the type the way numpy users know it: "uint8", "float32",
// "int16 (big-endian)", "array[3,3] of float32", "variable-length string".
func (t Type) String() string {
	var s string
	switch t.Class {
	case Integer:
		s = fmt.Sprintf("int%d", 8*t.Size)
		if !t.Signed {
			s = "u" + s
		}
	case Float:
		s = fmt.Sprintf("float%d", 8*t.Size)
	case Bitfield:
		s = fmt.Sprintf("bitfield%d", 8*t.Size)
	case String:
		if t.VarString {
			return "variable-length string"
		}
		return fmt.Sprintf("fixed-length string (%d bytes)", t.Size)
	case Enum:
		return fmt.Sprintf("enum of %s", t.base())
	case Array:
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = fmt.Sprint(d)
		}
		return fmt.Sprintf("array[%s] of %s", strings.Join(dims, ","), t.base())
	case VarLen:
		return fmt.Sprintf("variable-length sequence of %s", t.base())
	default:
		return fmt.Sprintf("%s (%d bytes)", t.Class, t.Size)
	}
	if t.BigEndian && t.Size > 1 {
		s += " (big-endian)"
	}
	return s
}

func (t Type) base() string {
	if t.Base == nil {
		return "?"
	}
	return t.Base.String()
}

// Filter is one filter of a dataset's pipeline (H5Pget_filter2).
type Filter struct {
	ID         int    // H5Z_filter_t: 1 deflate, 2 shuffle, 3 fletcher32, 32000 lzf, ...
	Name       string // as stored in the pipeline message
	Optional   bool   // H5Z_FLAG_OPTIONAL: a chunk may skip it
	Params     []uint32
	LibDecodes bool // this libhdf5 has it, with decoding enabled
}

// String is the filter's name and parameters, e.g. "deflate(4)".
func (f Filter) String() string {
	name := f.Name
	switch f.ID {
	case 1:
		name = "deflate"
	case 2:
		name = "shuffle"
	case 3:
		name = "fletcher32"
	}
	if name == "" {
		name = fmt.Sprintf("filter %d", f.ID)
	} else if f.ID > 3 {
		name = fmt.Sprintf("%s (filter %d)", name, f.ID)
	}
	if f.ID == 1 && len(f.Params) == 1 {
		return fmt.Sprintf("%s(%d)", name, f.Params[0])
	}
	return name
}

// ChunkIndex is how a chunked dataset indexes its chunks
// (H5D_chunk_index_t).
type ChunkIndex int

const (
	BTree1      ChunkIndex = iota // version 1 B-tree: libhdf5's default format
	SingleChunk                   // one chunk
	Implicit                      // no index: unfiltered, allocated early
	FixedArray                    // no unlimited dimension (newer format)
	ExtArray                      // one unlimited dimension (newer format)
	BTree2                        // more unlimited dimensions (newer format)
)

func (c ChunkIndex) String() string {
	names := [...]string{"v1 B-tree", "single chunk", "implicit", "fixed array", "extensible array", "v2 B-tree"}
	if c >= 0 && int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("ChunkIndex(%d)", int(c))
}

// Dataset describes one dataset.
type Dataset struct {
	Name   string  // absolute, e.g. "/train/images"
	Space  Space   // simple, scalar or null
	Shape  []int64 // simple: the current extent of every dimension
	Type   Type
	Layout Layout
	// Offset is where a contiguous dataset's data start in the file; -1
	// when none is allocated or the layout is not contiguous.
	Offset int64
	Chunk  []int64 // chunked: the chunk shape
	// Index is how the chunks are indexed (chunked datasets).
	Index    ChunkIndex
	Filters  []Filter
	External int // files of external storage (H5Pset_external)
	// ExternalFiles names them, as the file does.
	ExternalFiles []string
	Stored        int64 // bytes the data take in the file (H5Dget_storage_size)
	// Allocated is the number of chunks written to the file (chunked
	// datasets); the others read as the fill value.
	Allocated int64
}

// Space is a dataspace class (H5S_class_t).
type Space int

const (
	Simple Space = iota
	Scalar
	Null
)

func (s Space) String() string { return [...]string{"simple", "scalar", "null"}[s] }

// Chunk is where one chunk lies in the file.
type Chunk struct {
	Coord  []int64 // chunk index along every dimension
	Offset int64   // -1: not allocated
	Size   int64   // stored (filtered) bytes
	// FilterMask has bit i set when filter i of the pipeline was skipped
	// for this chunk.
	FilterMask uint32
}
