package index

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/source"
)

// Source returns the index as a source.Source of the data file at path.
//
// Each record is a block of one piece, stored as is: its value and, in
// front of it, the bytes that identify it in the file (for a value in
// overflow pages the 16-byte page header, for a value in a leaf page its
// node header and key). BlockOf gives the value's place after them, and
// Verify checks them, so an index that does not describe the file gives an
// error instead of other bytes.
func (x *Index) Source(path string) source.Source { return &lmdbSource{x, path} }

// lmdbSource is an Index seen through the format-neutral interface.
type lmdbSource struct {
	*Index
	path string
}

var (
	_ source.Source   = (*lmdbSource)(nil)
	_ source.Verifier = (*lmdbSource)(nil)
)

func (s *lmdbSource) Label(int) []byte           { return nil }
func (s *lmdbSource) ValueLen(i int) int64       { return int64(s.size[i]) }
func (s *lmdbSource) Blocks() int                { return s.Len() }
func (s *lmdbSource) BlockOf(i int) (int, int64) { return i, s.prefixLen(i) }
func (s *lmdbSource) DecodedLen(b int) int64     { return s.prefixLen(b) + int64(s.size[b]) }
func (s *lmdbSource) Decoder() source.Decoder    { return nil }
func (s *lmdbSource) Pieces(b int, dst []source.Extent) []source.Extent {
	p := s.prefixLen(b)
	return append(dst, source.Extent{Off: s.off[b] - p, Len: p + int64(s.size[b])})
}

// Verify checks the bytes in front of block b's value (see Source).
func (s *lmdbSource) Verify(b int, block []byte) error {
	if int64(len(block)) != s.DecodedLen(b) {
		return mismatch(b, s.off[b], fmt.Sprintf("block of %d bytes, want %d", len(block), s.DecodedLen(b)))
	}
	return s.verifyPrefix(b, block[:s.prefixLen(b)])
}

// HeadLen is the length of the bytes in front of block b's value.
func (s *lmdbSource) HeadLen(b int) int64 { return s.prefixLen(b) }

// VerifyHead checks the bytes in front of block b's value, read alone.
func (s *lmdbSource) VerifyHead(b int, head []byte) error { return s.verifyPrefix(b, head) }

// Heads is the check of the bytes in front of values that learners make
// where they map the data file (see Heads).
func (s *lmdbSource) Heads() Heads { return s.heads() }

func (s *lmdbSource) Info() source.Info {
	return source.Info{Format: "lmdb", Path: s.path, FileSize: s.id.Size, ValueBytes: s.total,
		Identity: fmt.Sprintf("lmdb:txn=%d:size=%d", s.id.TxnID, s.id.Size)}
}
