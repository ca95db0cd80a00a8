package hdf5

import (
	"bytes"
	"errors"
	"testing"
)

// seedSources are small sources of every kind, built by hand so the fuzz
// test needs no h5py.
func seedSources() []*Source {
	base := func() Source {
		return Source{path: "/d/f.h5", fileSize: 1 << 16, modTime: 1, name: "/data", typ: "uint8", elemSize: 1, base: -1}
	}
	contiguous := base()
	contiguous.shape, contiguous.read, contiguous.base = []int64{10, 3, 4}, ByOffset, 2048
	contiguous.labels, contiguous.labelType, contiguous.labelRow = "/label", "int64", 8
	contiguous.labelData = make([]byte, 80)

	rowChunks := base()
	rowChunks.shape, rowChunks.read, rowChunks.chunk, rowChunks.rowsPerBlock = []int64{5, 4}, ByOffset, []int64{2, 4}, 2
	rowChunks.chunks = []chunkRef{{off: 100, size: 8}, {off: 300, size: 8}, {off: 200, size: 8}}

	chunked := base()
	chunked.shape, chunked.read, chunked.chunk, chunked.rowsPerBlock = []int64{5, 3, 5}, ByChunk, []int64{2, 2, 3}, 2
	chunked.filters = []filter{{id: filterShuffle, params: []uint32{1}}, {id: filterDeflate, params: []uint32{4}}}
	for b := range 3 {
		// File order differs from grid order.
		for k, cell := range []int64{0, 2, 1, 3} {
			chunked.chunks = append(chunked.chunks, chunkRef{off: 1000 + int64(b*100+k*20), size: 12, cell: cell, mask: uint32(cell % 2)})
		}
	}
	plain := chunked
	plain.filters = nil
	plain.chunks = nil
	for _, c := range chunked.chunks {
		c.size, c.mask = 12, 0
		plain.chunks = append(plain.chunks, c)
	}

	library := base()
	library.shape, library.read, library.rowsPerBlock, library.why = []int64{7, 2}, ByLibrary, 3, "compact layout"
	return []*Source{&contiguous, &rowChunks, &chunked, &plain, &library}
}

func TestSeedSources(t *testing.T) {
	for i, s := range seedSources() {
		b, _ := s.MarshalBinary()
		if _, err := Unmarshal(b); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range seedSources() {
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrLayout) {
				t.Fatalf("error %v does not wrap ErrLayout", err)
			}
			return
		}
		enc, _ := s.MarshalBinary()
		again, err := Unmarshal(enc)
		if err != nil {
			t.Fatalf("re-encoded source: %v", err)
		}
		if enc2, _ := again.MarshalBinary(); !bytes.Equal(enc, enc2) {
			t.Fatal("encoding not stable")
		}
		exercise(t, s)
	})
}

// exercise calls every method on the first and last records and blocks,
// and decodes block 0 from zeros when that is cheap: none may panic.
func exercise(t *testing.T, s *Source) {
	info := s.Info()
	for _, i := range []int{0, s.Len() - 1} {
		if i < 0 {
			continue
		}
		s.Key(i)
		s.Label(i)
		b, off := s.BlockOf(i)
		if b < 0 || b >= s.Blocks() || off+s.ValueLen(i) > s.DecodedLen(b) {
			t.Fatalf("record %d in block %d at %d", i, b, off)
		}
	}
	for _, b := range []int{0, s.Blocks() - 1} {
		if b < 0 {
			continue
		}
		for _, p := range s.Pieces(b, nil) {
			if p.Len < 1 || p.Off < 0 || p.End() > info.FileSize {
				t.Fatalf("block %d: piece %+v outside the file", b, p)
			}
		}
	}
	if s.read != ByChunk || s.Blocks() == 0 || s.DecodedLen(0) > 1<<20 || s.chunkBytes() > 1<<20 {
		return
	}
	var pieces [][]byte
	for _, p := range s.Pieces(0, nil) {
		if p.Len > 1<<20 {
			return
		}
		pieces = append(pieces, make([]byte, p.Len))
	}
	_ = s.Decoder().Decode(0, pieces, make([]byte, s.DecodedLen(0)))
}
