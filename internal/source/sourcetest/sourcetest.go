// Package sourcetest checks a source.Source against its contract and
// computes the digest of `lmdbio digest` from it the simple way
// (source.Scan), for tests of the sources and of the pipelines that read
// them.
package sourcetest

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/internal/source"
)

// Sum is what a digest covered.
type Sum struct {
	Records int
	Bytes   int64
	Digest  uint64
}

// Add adds one record: the first 8 bytes of SHA-256(key ‖ value) as a
// little-endian uint64, summed modulo 2^64.
func (s *Sum) Add(key, value []byte) {
	h := sha256.New()
	h.Write(key)
	h.Write(value)
	var d [sha256.Size]byte
	s.Records++
	s.Bytes += int64(len(value))
	s.Digest += binary.LittleEndian.Uint64(h.Sum(d[:0]))
}

// Digest reads every record of src from its data file (Info().Path): each
// block's pieces with pread, decoded, and sums the records.
func Digest(t testing.TB, src source.Source) Sum {
	t.Helper()
	sum, err := DigestErr(src)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// DigestErr is Digest for sources whose blocks may not decode.
func DigestErr(src source.Source) (Sum, error) {
	f, err := os.Open(src.Info().Path)
	if err != nil {
		return Sum{}, err
	}
	defer f.Close()
	var sum Sum
	err = source.Scan(src, f, func(i int, value []byte) error {
		sum.Add(src.Key(i), value)
		return nil
	})
	return sum, err
}

// Check checks the invariants of source.Source: every record lies inside
// its block's decoded bytes; every block's pieces have positive lengths
// and lie inside the file; blocks stored as is have one piece as long as
// the block; the values add up to Info().ValueBytes.
func Check(t testing.TB, src source.Source) {
	t.Helper()
	info := src.Info()
	var total int64
	for i := range src.Len() {
		b, off := src.BlockOf(i)
		n := src.ValueLen(i)
		total += n
		if b < 0 || b >= src.Blocks() || off < 0 || n < 0 || off+n > src.DecodedLen(b) {
			t.Fatalf("record %d: [%d, %d) of block %d (of %d) of %d bytes", i, off, off+n, b, src.Blocks(), src.DecodedLen(b))
		}
	}
	if total != info.ValueBytes {
		t.Errorf("values add up to %d bytes, Info says %d", total, info.ValueBytes)
	}
	var pieces []source.Extent
	for b := range src.Blocks() {
		pieces = src.Pieces(b, pieces[:0])
		for _, p := range pieces {
			if p.Len < 1 || p.Off < 0 || p.End() > info.FileSize {
				t.Fatalf("block %d: piece %+v in a file of %d bytes", b, p, info.FileSize)
			}
		}
		if src.Decoder() == nil && (len(pieces) != 1 || pieces[0].Len != src.DecodedLen(b)) {
			t.Fatalf("block %d stored as is: pieces %+v for %d bytes", b, pieces, src.DecodedLen(b))
		}
	}
}
