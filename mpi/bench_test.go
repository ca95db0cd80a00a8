package mpi

import (
	"fmt"
	"testing"
)

// Under mpirun every rank runs the benchmarks; TestMain fixes the iteration
// count so ranks agree on b.N. size is the number of bytes each rank
// receives per operation, which b.SetBytes reports as throughput per rank.

var benchSizes = []int{64 << 10, 1 << 20, 16 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("size=%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("size=%dKiB", n>>10)
	}
	return fmt.Sprintf("size=%dB", n)
}

// BenchmarkAllgatherv: every rank contributes size/Size bytes and receives
// size bytes.
func BenchmarkAllgatherv(b *testing.B) {
	w := World()
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			per := size / w.Size()
			counts := make([]int, w.Size())
			for r := range counts {
				counts[r] = per
			}
			displs, total := prefixLayout(counts)
			send, recv := make([]byte, per), make([]byte, total)
			b.SetBytes(int64(total))
			if err := w.Barrier(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if err := w.Allgatherv(send, recv, counts, displs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAlltoallv: every rank sends size/Size bytes to every rank and
// receives as much from each.
func BenchmarkAlltoallv(b *testing.B) {
	w := World()
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			per := size / w.Size()
			counts := make([]int, w.Size())
			for r := range counts {
				counts[r] = per
			}
			displs, total := prefixLayout(counts)
			send, recv := make([]byte, total), make([]byte, total)
			b.SetBytes(int64(total))
			if err := w.Barrier(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if err := w.Alltoallv(send, counts, displs, recv, counts, displs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
