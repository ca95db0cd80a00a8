package hdf5

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/h5lib"
	"github.com/lmdbio/lmdbio/internal/source"
)

// libraryDecoder reads blocks through libhdf5: hyperslab reads of their
// rows, on h5lib's goroutine. Each Decode opens the file and closes it
// again, so a Source needs no Close; a block is a chunk row or a few MiB,
// which amortises the opening.
type libraryDecoder struct{ s *Source }

// Decode reads block b's rows into dst; the block has no pieces.
func (d libraryDecoder) Decode(b int, pieces [][]byte, dst []byte) error {
	s := d.s
	if b < 0 || b >= s.Blocks() {
		return fmt.Errorf("hdf5: block %d out of range [0, %d)", b, s.Blocks())
	}
	first, rows := s.blockRows(b)
	if len(pieces) != 0 || int64(len(dst)) != rows*s.rowBytes {
		return fmt.Errorf("hdf5: block %d: %d pieces into %d bytes, want none into %d",
			b, len(pieces), len(dst), rows*s.rowBytes)
	}
	f, err := h5lib.Open(s.path)
	if err != nil {
		return fmt.Errorf("dataset %s, rows %d-%d through libhdf5: %w", s.name, first, first+rows-1, err)
	}
	defer f.Close()
	if err := f.ReadRows(s.name, s.shape, s.elemSize, first, rows, dst); err != nil {
		return fmt.Errorf("dataset %s, rows %d-%d through libhdf5: %w: %w", s.name, first, first+rows-1, err, source.ErrCorrupt)
	}
	return nil
}
