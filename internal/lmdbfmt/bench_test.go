package lmdbfmt

import (
	"os"
	"testing"
)

// BenchmarkWalk walks databases from the file system (page cache); bytes/s
// counts the file size, the data an index of it describes.
func BenchmarkWalk(b *testing.B) {
	for _, name := range []string{"mixed", "deep"} {
		b.Run("db="+name, func(b *testing.B) {
			fx := getFixture(b, name)
			fh, err := os.Open(fx.path)
			if err != nil {
				b.Fatal(err)
			}
			defer fh.Close()
			size := int64(len(fx.img))
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, err := Open(fh, size)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				if err := f.Walk(func(Record) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
