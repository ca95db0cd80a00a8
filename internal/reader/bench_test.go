package reader

import (
	"errors"
	"fmt"
	"testing"
)

// BenchmarkReadSpan reads a 32 MiB file span by span, round and round. The
// buffered runs measure the page cache path (the file was just written); the
// direct runs go to the device each time.
func BenchmarkReadSpan(b *testing.B) {
	const fileSize = 32 << 20
	path, _ := writeTestFile(b, b.TempDir(), fileSize)
	for _, direct := range []bool{false, true} {
		r, err := Open(path, direct)
		if errors.Is(err, ErrDirectUnsupported) {
			b.Logf("direct=true skipped: %v", err)
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		for _, span := range []int{64 << 10, 1 << 20, 4 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("direct=%v/span=%s", direct, sizeName(span)), func(b *testing.B) {
				dst := Aligned(span)
				b.SetBytes(int64(span))
				off := int64(0)
				for b.Loop() {
					if n, err := r.ReadSpan(dst, off); err != nil || n != span {
						b.Fatalf("ReadSpan = %d, %v", n, err)
					}
					off = (off + int64(span)) % fileSize
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}
