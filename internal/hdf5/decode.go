package hdf5

import (
	"fmt"
	"sync"

	"github.com/lmdbio/lmdbio/internal/source"
)

// chunkDecoder turns a block's chunks into its rows, in Go.
type chunkDecoder struct{ s *Source }

// scratches holds pairs of chunk-sized buffers for the filter stages.
var scratches sync.Pool

type scratch struct{ a, b []byte }

// Decode writes block b's rows into dst from its chunks, in the order
// Pieces lists them. A chunk that does not decode gives an error naming
// it, wrapping source.ErrCorrupt.
func (d chunkDecoder) Decode(b int, pieces [][]byte, dst []byte) error {
	s := d.s
	if b < 0 || b >= s.Blocks() {
		return fmt.Errorf("hdf5: block %d out of range [0, %d)", b, s.Blocks())
	}
	first, rows := s.blockRows(b)
	if len(pieces) != s.perBlock || int64(len(dst)) != rows*s.rowBytes {
		return fmt.Errorf("hdf5: block %d: %d pieces into %d bytes, want %d into %d",
			b, len(pieces), len(dst), s.perBlock, rows*s.rowBytes)
	}
	sc, _ := scratches.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer scratches.Put(sc)
	for k, p := range pieces {
		c := s.chunks[b*s.perBlock+k]
		if err := s.decodeChunk(c, p, dst, rows, sc); err != nil {
			return fmt.Errorf("dataset %s, rows %d-%d: chunk %v at offset %d (%d bytes): %w: %w",
				s.name, first, first+rows-1, s.chunkCoord(b, c.cell), c.off, c.size, err, source.ErrCorrupt)
		}
	}
	return nil
}

// decodeChunk undoes the filters of chunk c, whose stored bytes are p, and
// places its part of the block in dst. Chunks of whole rows decode
// straight into dst; others go through scratch and are assembled.
func (s *Source) decodeChunk(c chunkRef, p, dst []byte, rows int64, sc *scratch) error {
	if int64(len(p)) != c.size {
		return fmt.Errorf("%d bytes read", len(p))
	}
	size := s.chunkBytes()
	in := p
	stages := s.stages(c.mask)
	for k, f := range stages {
		var out []byte
		switch {
		case k == len(stages)-1 && s.wholeRows:
			out = dst
		case k%2 == 0:
			sc.a = grow(sc.a, size)
			out = sc.a
		default:
			sc.b = grow(sc.b, size)
			out = sc.b
		}
		switch f.id {
		case filterDeflate:
			if err := inflate(out, in, size); err != nil {
				return err
			}
		case filterShuffle:
			if int64(len(in)) != size {
				return fmt.Errorf("shuffled chunk of %d bytes, want %d", len(in), size)
			}
			unshuffle(out, in, s.shuffleSize(f))
		}
		in = out
	}
	switch {
	case len(stages) == 0 && int64(len(in)) != size:
		return fmt.Errorf("stored unfiltered in %d bytes, want %d", len(in), size)
	case len(stages) > 0 && s.wholeRows:
		return nil // decoded in place
	case s.wholeRows:
		copy(dst, in)
		return nil
	}
	s.place(dst, rows, in, c.cell)
	return nil
}

// stages lists the filters to undo for a chunk, last applied first,
// leaving out those its mask says were skipped.
func (s *Source) stages(mask uint32) []filter {
	var st [maxFilters]filter
	out := st[:0]
	for i := len(s.filters) - 1; i >= 0; i-- {
		if mask&(1<<i) == 0 {
			out = append(out, s.filters[i])
		}
	}
	return out
}

// shuffleSize is the element size the shuffle filter used: its parameter,
// which libhdf5 sets to the datatype's size.
func (s *Source) shuffleSize(f filter) int {
	if len(f.params) > 0 && f.params[0] > 0 {
		return int(f.params[0])
	}
	return int(s.elemSize)
}

// chunkBytes is the size of one decoded chunk.
func (s *Source) chunkBytes() int64 { return s.elemSize * product(s.chunk) }

// chunkCoord is the grid coordinate of the chunk at cell of block b.
func (s *Source) chunkCoord(b int, cell int64) []int64 {
	coord := make([]int64, len(s.grid))
	coord[0] = int64(b)
	for d := len(s.grid) - 1; d >= 1; d-- {
		coord[d] = cell % s.grid[d]
		cell /= s.grid[d]
	}
	return coord
}

// place copies the part of a decoded chunk (src, chunk-shaped, row-major)
// that lies inside the dataset into the block dst (rows × shape[1:]). The
// chunk at cell starts at row 0 of the block and at cell's coordinates
// times the chunk shape in the other dimensions; it may run past the
// dataset's extent in any of them (edge chunks).
func (s *Source) place(dst []byte, rows int64, src []byte, cell int64) {
	rank := len(s.shape)
	var n, start, sstride, dstride, idx [maxRank]int64
	dims := func(d int) int64 {
		if d == 0 {
			return rows
		}
		return s.shape[d]
	}
	ss, ds := s.elemSize, s.elemSize
	for d := rank - 1; d >= 0; d-- {
		if d > 0 {
			start[d] = cell % s.grid[d] * s.chunk[d]
			cell /= s.grid[d]
		}
		n[d] = min(s.chunk[d], dims(d)-start[d])
		sstride[d], dstride[d] = ss, ds
		ss *= s.chunk[d]
		ds *= dims(d)
	}
	// Inner dimensions the chunk covers whole, in the chunk and the block
	// alike, make one contiguous run with the first one it does not.
	m := rank - 1
	for m > 0 && n[m] == s.chunk[m] && n[m] == dims(m) {
		m--
	}
	run := n[m] * sstride[m]
	var base int64
	for d := range rank {
		base += start[d] * dstride[d]
	}
	for {
		so, do := int64(0), base
		for d := range m {
			so += idx[d] * sstride[d]
			do += idx[d] * dstride[d]
		}
		copy(dst[do:do+run], src[so:so+run])
		d := m - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < n[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func grow(b []byte, n int64) []byte {
	if int64(cap(b)) < n {
		return make([]byte, n)
	}
	return b[:n]
}
