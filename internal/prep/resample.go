package prep

import "math"

// Resampling as Pillow's Image.resize with the BILINEAR filter (Resample.c):
// a triangle filter widened by the reduction factor, so that downscaling
// averages every source pixel (antialiasing), weights normalised per output
// pixel, then rounded to fixed point with precisionBits fraction bits; a
// horizontal pass over the rows the vertical pass needs, rounded to uint8,
// then a vertical pass. Doing exactly that, not merely a bilinear filter,
// makes a resize equal Pillow's pixel for pixel.

// precisionBits is Pillow's PRECISION_BITS for 8-bit images.
const precisionBits = 32 - 8 - 2

// box is a source region in pixel coordinates, which may be fractional.
type box struct{ x0, y0, x1, y1 float64 }

// taps are the filter of one direction: for output pixel i, the source
// pixels first[i] .. first[i]+count[i]-1 with weights w[i*size:].
type taps struct {
	first, count []int
	w            []int32
	size         int       // weights per output pixel
	k            []float64 // scratch: one output pixel's weights before rounding
}

// bilinearSupport is the triangle filter's half-width at scale 1.
const bilinearSupport = 1.0

func triangle(x float64) float64 {
	x = math.Abs(x)
	if x < 1 {
		return 1 - x
	}
	return 0
}

// computeTaps is Pillow's precompute_coeffs and normalize_coeffs_8bpc:
// the filter mapping [in0, in1) of an inSize-pixel line onto outSize pixels.
func computeTaps(t *taps, inSize int, in0, in1 float64, outSize int) {
	scale := (in1 - in0) / float64(outSize)
	filterScale := max(scale, 1)
	support := bilinearSupport * filterScale
	t.size = int(math.Ceil(support))*2 + 1
	t.first = growInts(t.first, outSize)
	t.count = growInts(t.count, outSize)
	if cap(t.w) < outSize*t.size {
		t.w = make([]int32, outSize*t.size)
	}
	t.w = t.w[:outSize*t.size]
	if cap(t.k) < t.size {
		t.k = make([]float64, t.size)
	}
	k := t.k[:t.size]
	for i := range outSize {
		center := in0 + (float64(i)+0.5)*scale
		lo := max(int(center-support+0.5), 0)
		hi := min(int(center+support+0.5), inSize)
		n := min(hi-lo, t.size)
		sum := 0.0
		for x := range n {
			k[x] = triangle((float64(x+lo) - center + 0.5) / filterScale)
			sum += k[x]
		}
		w := t.w[i*t.size : (i+1)*t.size]
		for x := range w {
			v := 0.0
			if x < n {
				v = k[x]
				if sum != 0 {
					v /= sum
				}
			}
			if v < 0 {
				w[x] = int32(-0.5 + v*(1<<precisionBits))
			} else {
				w[x] = int32(0.5 + v*(1<<precisionBits))
			}
		}
		t.first[i], t.count[i] = lo, max(n, 0)
	}
}

func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// clip8 is Pillow's clip8 for a sum of non-negative terms: the fixed-point
// value as a byte.
func clip8(v uint32) byte {
	return byte(min(v>>precisionBits, 255))
}

// Lanes: the filter's weights are never negative (a triangle), so a sum of
// 8-bit pixels times weights stays below 2^31 (255 times weights that add up
// to about 2^22, plus the rounding half). Two such sums fit a uint64 with no
// carry from the low one into the high one, so one multiplication serves
// two channels.
const laneHalf = 1<<(precisionBits-1) | 1<<(precisionBits-1)<<32

// resampler holds the scratch of resample; one per Worker.
type resampler struct {
	h, v taps
	tmp  []byte
	rows [][]byte
}

// resample is Pillow's ImagingResample(src, (w, h), BILINEAR, b) into a
// new image in out's storage. src is the whole image Pillow would see: the
// filter never reads outside it, whatever b is.
func (r *resampler) resample(src rgb, b box, w, h int, out *[]byte) rgb {
	needH := w != src.W || b.x0 != 0 || b.x1 != float64(w)
	needV := h != src.H || b.y0 != 0 || b.y1 != float64(h)
	computeTaps(&r.h, src.W, b.x0, b.x1, w)
	computeTaps(&r.v, src.H, b.y0, b.y1, h)
	if !needH && !needV {
		dst := newRGB(out, w, h)
		for y := range h {
			copy(dst.row(y), src.row(y))
		}
		return dst
	}
	// The rows the vertical pass reads.
	yFirst := r.v.first[0]
	yLast := r.v.first[h-1] + r.v.count[h-1]
	mid := src
	if needH {
		for i := range r.v.first {
			r.v.first[i] -= yFirst
		}
		mid = newRGB(&r.tmp, w, yLast-yFirst)
		horizontalPass(mid, src, yFirst, &r.h)
	}
	if !needV {
		return copyInto(mid, out)
	}
	dst := newRGB(out, w, h)
	if cap(r.rows) < r.v.size {
		r.rows = make([][]byte, r.v.size)
	}
	verticalPass(dst, mid, &r.v, r.rows[:r.v.size])
	return dst
}

// copyInto copies m into out's storage (the horizontal pass wrote into the
// resampler's scratch, which the next resample reuses).
func copyInto(m rgb, out *[]byte) rgb {
	dst := newRGB(out, m.W, m.H)
	for y := range m.H {
		copy(dst.row(y), m.row(y))
	}
	return dst
}

// horizontalPass is ImagingResampleHorizontal_8bpc: row y of dst from row
// y+offset of src, red and blue in the lanes of one uint64. Two rows go at
// once, sharing the loop and the weights' loads, which is most of prep's
// time after decoding.
func horizontalPass(dst, src rgb, offset int, t *taps) {
	y := 0
	for ; y+1 < dst.H; y += 2 {
		in0, in1 := src.row(y+offset), src.row(y+1+offset)
		o0, o1 := dst.row(y), dst.row(y+1)
		for x := range dst.W {
			first, n := t.first[x], t.count[x]
			k := t.w[x*t.size:][:n]
			p0, p1 := in0[3*first:][:3*n], in1[3*first:][:3*n]
			rb0, g0 := uint64(laneHalf), uint64(1<<(precisionBits-1))
			rb1, g1 := rb0, g0
			for i, wt := range k {
				w := uint64(uint32(wt))
				q0, q1 := p0[3*i:3*i+3], p1[3*i:3*i+3]
				rb0 += (uint64(q0[0]) | uint64(q0[2])<<32) * w
				g0 += uint64(q0[1]) * w
				rb1 += (uint64(q1[0]) | uint64(q1[2])<<32) * w
				g1 += uint64(q1[1]) * w
			}
			putPixel(o0[3*x:3*x+3], rb0, g0)
			putPixel(o1[3*x:3*x+3], rb1, g1)
		}
	}
	if y < dst.H {
		in, o := src.row(y+offset), dst.row(y)
		for x := range dst.W {
			first, n := t.first[x], t.count[x]
			k := t.w[x*t.size:][:n]
			p := in[3*first:][:3*n]
			rb, g := uint64(laneHalf), uint64(1<<(precisionBits-1))
			for i, wt := range k {
				w := uint64(uint32(wt))
				q := p[3*i : 3*i+3]
				rb += (uint64(q[0]) | uint64(q[2])<<32) * w
				g += uint64(q[1]) * w
			}
			putPixel(o[3*x:3*x+3], rb, g)
		}
	}
}

// putPixel stores the sums of one pixel: red and blue in the lanes of rb.
func putPixel(q []byte, rb, g uint64) {
	q[0], q[1], q[2] = clip8(uint32(rb)), clip8(uint32(g)), clip8(uint32(rb>>32))
}

// verticalPass is ImagingResampleVertical_8bpc. For each output row it
// takes the source rows of its taps (rows is scratch for them) and sums
// down the columns eight bytes at a time, in the lanes of four uint64s
// (the loop over taps is short, so its overhead is spread wide).
func verticalPass(dst, src rgb, t *taps, rows [][]byte) {
	n := 3 * dst.W
	for y := range dst.H {
		k := t.w[y*t.size : y*t.size+t.count[y]]
		rows = rows[:len(k)]
		for i := range rows {
			rows[i] = src.row(t.first[y] + i)[:n]
		}
		o := dst.row(y)[:n]
		j := 0
		for ; j+7 < n; j += 8 {
			s0, s1, s2, s3 := uint64(laneHalf), uint64(laneHalf), uint64(laneHalf), uint64(laneHalf)
			for i, r := range rows {
				p, w := r[j:j+8], uint64(uint32(k[i]))
				s0 += (uint64(p[0]) | uint64(p[1])<<32) * w
				s1 += (uint64(p[2]) | uint64(p[3])<<32) * w
				s2 += (uint64(p[4]) | uint64(p[5])<<32) * w
				s3 += (uint64(p[6]) | uint64(p[7])<<32) * w
			}
			q := o[j : j+8]
			q[0], q[1], q[2], q[3] = clip8(uint32(s0)), clip8(uint32(s0>>32)), clip8(uint32(s1)), clip8(uint32(s1>>32))
			q[4], q[5], q[6], q[7] = clip8(uint32(s2)), clip8(uint32(s2>>32)), clip8(uint32(s3)), clip8(uint32(s3>>32))
		}
		for ; j+3 < n; j += 4 {
			s0, s1 := uint64(laneHalf), uint64(laneHalf)
			for i, r := range rows {
				p, w := r[j:j+4], uint64(uint32(k[i]))
				s0 += (uint64(p[0]) | uint64(p[1])<<32) * w
				s1 += (uint64(p[2]) | uint64(p[3])<<32) * w
			}
			q := o[j : j+4]
			q[0], q[1], q[2], q[3] = clip8(uint32(s0)), clip8(uint32(s0>>32)), clip8(uint32(s1)), clip8(uint32(s1>>32))
		}
		for ; j < n; j++ {
			s := uint64(1 << (precisionBits - 1))
			for i, r := range rows {
				s += uint64(r[j]) * uint64(uint32(k[i]))
			}
			o[j] = clip8(uint32(s))
		}
	}
}
