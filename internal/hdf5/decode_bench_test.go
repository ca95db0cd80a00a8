package hdf5

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/internal/gen"
)

// BenchmarkDecode measures Decode on one goroutine: chunks of 64 rows of
// 3x32x32 uint8 images as lmdbio gen writes them, already in memory.
// Bytes are decoded bytes.
func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct {
		name string
		opt  gen.HDF5Options
	}{
		{"filters=gzip", gen.HDF5Options{Gzip: 4}},
		{"filters=shuffle,gzip", gen.HDF5Options{Gzip: 4, Shuffle: true}},
		{"filters=gzip1", gen.HDF5Options{Gzip: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opt := bc.opt
			opt.Records, opt.Shape, opt.ChunkRows, opt.Seed = 1024, []int{3, 32, 32}, 64, 1
			path := filepath.Join(b.TempDir(), "f.h5")
			if _, err := gen.WriteHDF5(path, opt); err != nil {
				b.Fatal(err)
			}
			s, err := Open(path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			img, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			blocks := make([][][]byte, s.Blocks())
			for k := range blocks {
				for _, p := range s.Pieces(k, nil) {
					blocks[k] = append(blocks[k], img[p.Off:p.End()])
				}
			}
			dst := make([]byte, s.MaxDecodedLen())
			dec := s.Decoder()
			b.SetBytes(s.MaxDecodedLen())
			k := 0
			for b.Loop() {
				if err := dec.Decode(k, blocks[k], dst[:s.DecodedLen(k)]); err != nil {
					b.Fatal(err)
				}
				k = (k + 1) % len(blocks)
			}
		})
	}
}
