package prep

import (
	"fmt"
	"testing"
)

// BenchmarkResample times the bilinear resize alone on typical
// random_resized_crop regions of a 500x375 photograph to 224x224.
func BenchmarkResample(b *testing.B) {
	for _, sz := range [][2]int{{370, 280}, {150, 120}, {500, 375}} {
		b.Run(fmt.Sprintf("from=%dx%d/to=224x224", sz[0], sz[1]), func(b *testing.B) {
			var buf, out []byte
			src := newRGB(&buf, sz[0], sz[1])
			for i := range src.Pix {
				src.Pix[i] = byte(i * 31 >> 3)
			}
			var r resampler
			b.SetBytes(224 * 224 * 3)
			for b.Loop() {
				r.resample(src, box{0, 0, float64(sz[0]), float64(sz[1])}, 224, 224, &out)
			}
		})
	}
}

func BenchmarkResampleVal(b *testing.B) {
	var buf, out []byte
	src := newRGB(&buf, 500, 375)
	for i := range src.Pix {
		src.Pix[i] = byte(i * 31 >> 3)
	}
	var r resampler
	for b.Loop() {
		r.resample(src, box{0, 0, 500, 375}, 341, 256, &out)
	}
}
