package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// The encoding of a Source, all integers as (u)varints:
//
//	magic, version
//	path, fileSize, modTime, name, type, elemSize, shape
//	read, base, chunk shape, rowsPerBlock
//	filters: count, then id, params
//	chunks: count, then off, size, cell, mask
//	why
//	labels name, label type, label row size, label bytes
const (
	magic   = "lmdbio-hdf5"
	version = 1
)

// MarshalBinary encodes the Source for node readers (Unmarshal).
func (s *Source) MarshalBinary() ([]byte, error) {
	var e encoder
	e.b = append(e.b, magic...)
	e.uint(version)
	e.str(s.path)
	e.int(s.fileSize)
	e.int(s.modTime)
	e.str(s.name)
	e.str(s.typ)
	e.int(s.elemSize)
	e.ints(s.shape)
	e.uint(uint64(s.read))
	e.int(s.base)
	e.ints(s.chunk)
	e.int(s.rowsPerBlock)
	e.uint(uint64(len(s.filters)))
	for _, f := range s.filters {
		e.uint(uint64(f.id))
		e.uint(uint64(len(f.params)))
		for _, p := range f.params {
			e.uint(uint64(p))
		}
	}
	e.uint(uint64(len(s.chunks)))
	for _, c := range s.chunks {
		e.int(c.off)
		e.int(c.size)
		e.int(c.cell)
		e.uint(uint64(c.mask))
	}
	e.str(s.why)
	e.str(s.labels)
	e.str(s.labelType)
	e.int(s.labelRow)
	e.uint(uint64(len(s.labelData)))
	e.b = append(e.b, s.labelData...)
	return e.b, nil
}

// Unmarshal decodes a Source MarshalBinary encoded and checks all of it:
// an encoding that is damaged, or describes rows, blocks or pieces that
// do not fit together or the file, gives an error wrapping ErrLayout.
// Allocations are bounded by len(b).
func Unmarshal(b []byte) (*Source, error) {
	s, err := decode(b)
	if err == nil {
		err = s.setUp()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLayout, err)
	}
	return s, nil
}

func decode(b []byte) (*Source, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errors.New("no magic")
	}
	d := decoder{b: b[len(magic):]}
	if v := d.uint(); v != version {
		return nil, fmt.Errorf("version %d, want %d", v, version)
	}
	s := &Source{path: d.str(), fileSize: d.int(), modTime: d.int(), name: d.str(), typ: d.str(),
		elemSize: d.int(), shape: d.ints()}
	s.read = Read(d.uint())
	s.base = d.int()
	s.chunk = d.ints()
	s.rowsPerBlock = d.int()
	nf := d.count(2)
	if nf > maxFilters {
		return nil, fmt.Errorf("%d filters", nf)
	}
	for range nf {
		f := filter{id: int(d.small(1 << 16))}
		np := d.count(1)
		if np > maxParams {
			return nil, fmt.Errorf("%d filter parameters", np)
		}
		for range np {
			f.params = append(f.params, uint32(d.small(1<<32)))
		}
		s.filters = append(s.filters, f)
	}
	nc := d.count(4)
	s.chunks = make([]chunkRef, 0, nc)
	for range nc {
		s.chunks = append(s.chunks, chunkRef{off: d.int(), size: d.int(), cell: d.int(), mask: uint32(d.small(1 << 32))})
	}
	s.why = d.str()
	s.labels = d.str()
	s.labelType = d.str()
	s.labelRow = d.int()
	s.labelData = d.bytes()
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes after the end", len(d.b))
	}
	return s, d.err
}

// setUp checks that everything a Source holds fits together and the file,
// and derives what the methods use. Open and Unmarshal both call it.
func (s *Source) setUp() error {
	if err := s.checkHeader(); err != nil {
		return err
	}
	switch s.read {
	case ByOffset:
		return s.setUpByOffset()
	case ByChunk:
		if err := s.setUpChunks(); err != nil {
			return err
		}
		s.decoder = chunkDecoder{s}
	case ByLibrary:
		if s.why == "" || s.rowsPerBlock < 1 || s.chunk != nil || len(s.filters) > 0 || len(s.chunks) > 0 || s.base != -1 {
			return errors.New("libhdf5 reads without a reason, or with chunks")
		}
		s.decoder = libraryDecoder{s}
	default:
		return fmt.Errorf("read %d", s.read)
	}
	return nil
}

// checkHeader checks the file, dataset, shape and labels.
func (s *Source) checkHeader() error {
	switch {
	case s.path == "" || s.name == "" || s.typ == "":
		return errors.New("no path, dataset name or type")
	case s.fileSize < 0:
		return fmt.Errorf("file size %d", s.fileSize)
	case len(s.shape) == 0 || len(s.shape) > maxRank:
		return fmt.Errorf("rank %d", len(s.shape))
	}
	var ok bool
	if s.rowBytes, ok = rowBytes(s.elemSize, s.shape); !ok || s.rowBytes == 0 {
		return fmt.Errorf("shape %v of %d-byte elements", s.shape, s.elemSize)
	}
	if int64(int(s.shape[0])) != s.shape[0] {
		return fmt.Errorf("%d rows", s.shape[0])
	}
	if s.labels == "" {
		if s.labelType != "" || s.labelRow != 0 || len(s.labelData) != 0 {
			return errors.New("label bytes without a labels dataset")
		}
		return nil
	}
	if s.labelType == "" || s.labelRow < 1 || int64(len(s.labelData))/s.labelRow != s.shape[0] ||
		int64(len(s.labelData))%s.labelRow != 0 {
		return fmt.Errorf("%d label bytes of %d-byte rows for %d rows", len(s.labelData), s.labelRow, s.shape[0])
	}
	return nil
}

// setUpByOffset checks rows read by offset: a contiguous extent, or one
// unfiltered chunk of whole rows per block.
func (s *Source) setUpByOffset() error {
	if len(s.filters) > 0 || s.why != "" {
		return errors.New("filters or a fallback reason for rows read by offset")
	}
	if s.chunk == nil {
		if s.rowsPerBlock != 0 || len(s.chunks) > 0 {
			return errors.New("chunks for a contiguous dataset")
		}
		if end, ok := mulCheck(s.shape[0], s.rowBytes); !ok || s.base < 0 && s.shape[0] > 0 ||
			s.base > s.fileSize || end > s.fileSize-max(s.base, 0) {
			return fmt.Errorf("rows at %d, %d of %d bytes, in a file of %d", s.base, s.shape[0], s.rowBytes, s.fileSize)
		}
		return nil
	}
	if s.base != -1 {
		return errors.New("a base offset for chunked rows")
	}
	if err := s.setUpGrid(); err != nil {
		return err
	}
	if !s.wholeRows || s.rowsPerBlock != s.chunk[0] {
		return errors.New("chunks of partial rows read by offset")
	}
	return s.checkChunks(true)
}

// setUpChunks checks a dataset read by chunk.
func (s *Source) setUpChunks() error {
	if s.base != -1 || s.why != "" || s.chunk == nil {
		return errors.New("chunks with a base offset or a fallback reason")
	}
	if err := s.setUpGrid(); err != nil {
		return err
	}
	if s.rowsPerBlock != s.chunk[0] {
		return fmt.Errorf("%d rows per block for chunks of %d", s.rowsPerBlock, s.chunk[0])
	}
	for _, f := range s.filters {
		if f.id != filterDeflate && f.id != filterShuffle {
			return fmt.Errorf("filter %d", f.id)
		}
	}
	return s.checkChunks(len(s.filters) == 0)
}

// setUpGrid checks the chunk shape and derives the grid.
func (s *Source) setUpGrid() error {
	if len(s.chunk) != len(s.shape) {
		return fmt.Errorf("chunk shape %v for shape %v", s.chunk, s.shape)
	}
	size := s.elemSize
	for _, c := range s.chunk {
		var ok bool
		if size, ok = mulCheck(size, c); c < 1 || !ok || size > maxChunkBytes {
			return fmt.Errorf("chunk shape %v of %d-byte elements", s.chunk, s.elemSize)
		}
	}
	if gridChunks(s.shape, s.chunk) < 0 {
		return fmt.Errorf("too many chunks of %v for %v", s.chunk, s.shape)
	}
	s.grid = make([]int64, len(s.shape))
	per := int64(1)
	for d := range s.shape {
		s.grid[d] = ceilDiv(s.shape[d], s.chunk[d])
		if d > 0 {
			per *= s.grid[d]
		}
	}
	s.perBlock = int(per)
	s.wholeRows = slices.Equal(s.chunk[1:], s.shape[1:])
	return nil
}

// checkChunks checks that the chunk list covers the grid, every cell of
// every block once, in file order within a block, inside the file, and,
// unfiltered, in exactly the chunk's size.
func (s *Source) checkChunks(unfiltered bool) error {
	if int64(len(s.chunks)) != s.grid[0]*int64(s.perBlock) {
		return fmt.Errorf("%d chunks for a grid of %v", len(s.chunks), s.grid)
	}
	if len(s.chunks) == 0 {
		return nil
	}
	seen := make([]bool, s.perBlock)
	for i, c := range s.chunks {
		k := i % s.perBlock
		if k == 0 {
			clear(seen)
		}
		switch {
		case c.cell < 0 || c.cell >= int64(s.perBlock) || seen[c.cell]:
			return fmt.Errorf("chunk %d: cell %d", i, c.cell)
		case c.size < 1 || c.off < 0 || c.off > s.fileSize || c.size > s.fileSize-c.off:
			return fmt.Errorf("chunk %d at %d, %d bytes, in a file of %d", i, c.off, c.size, s.fileSize)
		case unfiltered && c.size != s.chunkBytes():
			return fmt.Errorf("unfiltered chunk %d of %d bytes, want %d", i, c.size, s.chunkBytes())
		case c.mask>>len(s.filters) != 0:
			return fmt.Errorf("chunk %d skips filters %#x of %d", i, c.mask, len(s.filters))
		case k > 0 && c.off < s.chunks[i-1].off+s.chunks[i-1].size:
			return fmt.Errorf("chunk %d at %d overlaps or precedes the one before", i, c.off)
		}
		seen[c.cell] = true
	}
	return nil
}

// encoder appends varints.
type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) ints(v []int64) {
	e.uint(uint64(len(v)))
	for _, x := range v {
		e.int(x)
	}
}

// decoder reads what encoder wrote; after the first error it reads zeros
// and keeps the error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errors.New("truncated or overlong integer"))
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errors.New("truncated or overlong integer"))
		return 0
	}
	d.b = d.b[n:]
	return v
}

// small reads an unsigned integer below limit.
func (d *decoder) small(limit uint64) uint64 {
	v := d.uint()
	if v >= limit {
		d.fail(fmt.Errorf("%d out of range", v))
		return 0
	}
	return v
}

// count reads a number of items that take at least minBytes each, so that
// it cannot ask for more memory than the input justifies.
func (d *decoder) count(minBytes int) int {
	v := d.uint()
	if v > uint64(len(d.b)/minBytes) {
		d.fail(fmt.Errorf("%d items in %d bytes", v, len(d.b)))
		return 0
	}
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.count(1)
	if d.err != nil {
		return nil
	}
	b := slices.Clone(d.b[:n])
	d.b = d.b[n:]
	return b
}

func (d *decoder) str() string {
	n := d.count(1)
	if n > maxString {
		d.fail(fmt.Errorf("string of %d bytes", n))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) ints() []int64 {
	n := d.count(1)
	if n > maxRank {
		d.fail(fmt.Errorf("%d dimensions", n))
		return nil
	}
	if n == 0 {
		return nil
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = d.int()
	}
	return v
}
