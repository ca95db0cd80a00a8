package planner

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkPlan plans a shuffled request for a fraction of a file of
// ImageNet-sized records (about 110 KiB each), as one window would.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 6))
			ext := make(extentList, 4*n)
			var off int64
			for i := range ext {
				size := 80<<10 + rng.Int64N(60<<10)
				ext[i] = [2]int64{off, size}
				off += size + 16 // page headers between values
			}
			records := rng.Perm(len(ext))[:n]
			var total int64
			for _, r := range records {
				total += ext[r][1]
			}
			opt := Options{MaxSpan: 16 << 20, MaxGap: 256 << 10, Align: 4096}
			b.SetBytes(total)
			b.ReportAllocs()
			var spans []Span
			for b.Loop() {
				spans = Plan(ext, records, opt)
			}
			st := Summarize(spans)
			b.ReportMetric(float64(st.Reads), "reads/op")
			b.ReportMetric(st.Amplification(), "amp")
		})
	}
}
