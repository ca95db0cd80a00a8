package hdf5

import (
	"encoding/binary"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/source"
)

// Read is how a Source reads its rows.
type Read uint8

const (
	// ByOffset reads every row with one pread, no decoding.
	ByOffset Read = iota + 1
	// ByChunk reads chunks with pread and decodes them in Go.
	ByChunk
	// ByLibrary reads rows through libhdf5 (the fallback).
	ByLibrary
)

func (r Read) String() string {
	switch r {
	case ByOffset:
		return "offset"
	case ByChunk:
		return "chunks"
	case ByLibrary:
		return "libhdf5"
	}
	return fmt.Sprintf("Read(%d)", r)
}

// Source is one dataset of an HDF5 file as a source.Source.
type Source struct {
	path     string // the file node readers open
	fileSize int64
	modTime  int64  // of the file, in Unix nanoseconds
	name     string // absolute dataset name, e.g. "/train/images"
	typ      string // the element type, e.g. "float32"
	elemSize int64
	shape    []int64 // shape[0] rows
	read     Read

	// base is the offset of row 0 of a contiguous dataset read by offset,
	// -1 when the rows lie in chunks.
	base int64
	// chunk is the chunk shape of a chunked dataset not read through
	// libhdf5, nil otherwise.
	chunk []int64
	// rowsPerBlock is chunk[0] for chunked datasets, and the rows one
	// libhdf5 read fetches for datasets read through it.
	rowsPerBlock int64
	// filters is the pipeline of a dataset read by chunk.
	filters []filter
	// chunks lists the chunks of a chunked dataset not read through
	// libhdf5: block by block, in file order within a block.
	chunks []chunkRef
	// why says why the rows are read through libhdf5.
	why string

	labels    string // absolute name of the labels dataset, "" for none
	labelType string
	labelRow  int64  // bytes of one label row
	labelData []byte // all label rows

	// Derived by setUp.
	rowBytes  int64
	grid      []int64 // chunks along every dimension
	perBlock  int     // chunks per block: the product of grid[1:]
	wholeRows bool    // chunks span whole rows: chunk[1:] == shape[1:]
	decoder   source.Decoder
}

// filter is one stage of the pipeline lmdbio undoes in Go.
type filter struct {
	id     int // filterDeflate or filterShuffle
	params []uint32
}

const (
	filterDeflate = 1 // H5Z_FILTER_DEFLATE
	filterShuffle = 2 // H5Z_FILTER_SHUFFLE
)

// chunkRef is one chunk as the decoder needs it.
type chunkRef struct {
	off, size int64
	// cell is the chunk's index in its block: row-major over grid[1:].
	cell int64
	// mask has bit i set when filter i was skipped for this chunk.
	mask uint32
}

var _ source.Source = (*Source)(nil)

// Len is the number of rows.
func (s *Source) Len() int { return int(s.shape[0]) }

// Key returns row i's number as 8 bytes, little-endian. Each call returns
// a new slice: holding every key would cost 8 bytes a row.
func (s *Source) Key(i int) []byte {
	s.check(i)
	return binary.LittleEndian.AppendUint64(make([]byte, 0, 8), uint64(i))
}

// Label returns row i of the labels dataset, nil when there is none.
func (s *Source) Label(i int) []byte {
	s.check(i)
	if s.labels == "" {
		return nil
	}
	at := int64(i) * s.labelRow
	return s.labelData[at : at+s.labelRow : at+s.labelRow]
}

func (s *Source) check(i int) {
	if i < 0 || int64(i) >= s.shape[0] {
		panic(fmt.Sprintf("hdf5: record %d out of range [0, %d)", i, s.shape[0]))
	}
}

// ValueLen is the size of every row.
func (s *Source) ValueLen(int) int64 { return s.rowBytes }

// Blocks is the number of blocks: rows when read by offset, else row
// blocks of rowsPerBlock rows.
func (s *Source) Blocks() int {
	if s.read == ByOffset {
		return int(s.shape[0])
	}
	return int(ceilDiv(s.shape[0], s.rowsPerBlock))
}

// BlockOf says which block holds row i and where.
func (s *Source) BlockOf(i int) (int, int64) {
	if s.read == ByOffset {
		return i, 0
	}
	r := int64(i)
	return int(r / s.rowsPerBlock), r % s.rowsPerBlock * s.rowBytes
}

// Pieces appends block b's extents: the row, its chunks, or nothing for
// blocks read through libhdf5.
func (s *Source) Pieces(b int, dst []source.Extent) []source.Extent {
	switch s.read {
	case ByOffset:
		return append(dst, source.Extent{Off: s.rowOffset(int64(b)), Len: s.rowBytes})
	case ByChunk:
		for _, c := range s.chunks[b*s.perBlock : (b+1)*s.perBlock] {
			dst = append(dst, source.Extent{Off: c.off, Len: c.size})
		}
	}
	return dst
}

// rowOffset is where row r lies in the file when read by offset.
func (s *Source) rowOffset(r int64) int64 {
	if s.base >= 0 {
		return s.base + r*s.rowBytes
	}
	return s.chunks[r/s.chunk[0]].off + r%s.chunk[0]*s.rowBytes
}

// DecodedLen is the size of block b's rows.
func (s *Source) DecodedLen(b int) int64 {
	if s.read == ByOffset {
		return s.rowBytes
	}
	_, n := s.blockRows(b)
	return n * s.rowBytes
}

// blockRows returns the first row of block b and how many it holds.
func (s *Source) blockRows(b int) (first, n int64) {
	first = int64(b) * s.rowsPerBlock
	return first, min(s.rowsPerBlock, s.shape[0]-first)
}

// Decoder returns nil for sources read by offset.
func (s *Source) Decoder() source.Decoder { return s.decoder }

// Info describes the dataset; its Note says when rows are read through
// libhdf5, and why.
func (s *Source) Info() source.Info {
	info := source.Info{Format: string(source.HDF5), Path: s.path, FileSize: s.fileSize,
		ValueBytes: s.shape[0] * s.rowBytes,
		Identity: fmt.Sprintf("hdf5:%s:%s%v:labels=%s:size=%d:mtime=%d",
			s.name, s.typ, s.shape, s.labels, s.fileSize, s.modTime)}
	if s.read == ByLibrary {
		info.Note = fmt.Sprintf("dataset %s is read through libhdf5, not by offset: %s", s.name, s.why)
	}
	return info
}

// Dataset is the absolute name of the dataset the rows come from.
func (s *Source) Dataset() string { return s.name }

// Labels is the absolute name of the labels dataset, "" when there is none.
func (s *Source) Labels() string { return s.labels }

// Shape is the dataset's shape; the caller must not modify it.
func (s *Source) Shape() []int64 { return s.shape }

// Type names the element type, e.g. "uint8" or "float32 (big-endian)".
func (s *Source) Type() string { return s.typ }

// Read says how rows are read and, for ByLibrary, why.
func (s *Source) Read() (Read, string) { return s.read, s.why }

// MaxDecodedLen is the largest DecodedLen of any block.
func (s *Source) MaxDecodedLen() int64 {
	if s.shape[0] == 0 {
		return 0
	}
	return s.DecodedLen(0)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
