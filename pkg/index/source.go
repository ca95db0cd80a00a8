package index

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/source"
)

// Source returns the index as a source.Source of the data file at path:
// one block per record, stored as is.
func (x *Index) Source(path string) source.Source { return &lmdbSource{x, path} }

// lmdbSource is an Index seen through the format-neutral interface: LMDB
// values are read straight from data.mdb, so every record is a block of one
// piece and nothing is decoded.
type lmdbSource struct {
	*Index
	path string
}

var _ source.Source = (*lmdbSource)(nil)

func (s *lmdbSource) Label(int) []byte           { return nil }
func (s *lmdbSource) ValueLen(i int) int64       { return int64(s.size[i]) }
func (s *lmdbSource) Blocks() int                { return s.Len() }
func (s *lmdbSource) BlockOf(i int) (int, int64) { return i, 0 }
func (s *lmdbSource) DecodedLen(b int) int64     { return int64(s.size[b]) }
func (s *lmdbSource) Decoder() source.Decoder    { return nil }
func (s *lmdbSource) Pieces(b int, dst []source.Extent) []source.Extent {
	return append(dst, source.Extent{Off: s.off[b], Len: int64(s.size[b])})
}

func (s *lmdbSource) Info() source.Info {
	return source.Info{Format: "lmdb", Path: s.path, FileSize: s.id.Size, ValueBytes: s.total,
		Identity: fmt.Sprintf("lmdb:txn=%d:size=%d", s.id.TxnID, s.id.Size)}
}
