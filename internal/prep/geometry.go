package prep

import "math"

// rect is an integer box: top-left (X, Y), size W x H.
type rect struct{ X, Y, W, H int }

// Default ranges of random_resized_crop, torchvision's RandomResizedCrop.
var (
	defaultScale = [2]float64{0.08, 1}
	defaultRatio = [2]float64{3.0 / 4, 4.0 / 3}
)

// randomResizedBox is torchvision's RandomResizedCrop.get_params for a
// w x h image: up to ten draws of an area fraction in scale and a
// log-uniform aspect ratio in ratio, the first box that fits placed
// uniformly; else the whole image cut to the nearer ratio bound, centred.
// Python's round is round-half-even, as math.RoundToEven.
func randomResizedBox(r *stream, w, h int, scale, ratio [2]float64) rect {
	area := float64(w * h)
	logLo, logHi := math.Log(ratio[0]), math.Log(ratio[1])
	for range 10 {
		target := area * r.uniform(scale[0], scale[1])
		aspect := math.Exp(r.uniform(logLo, logHi))
		cw := int(math.RoundToEven(math.Sqrt(target * aspect)))
		ch := int(math.RoundToEven(math.Sqrt(target / aspect)))
		if 0 < cw && cw <= w && 0 < ch && ch <= h {
			y := r.intn(h - ch + 1)
			x := r.intn(w - cw + 1)
			return rect{X: x, Y: y, W: cw, H: ch}
		}
	}
	return fallbackBox(w, h, ratio)
}

// fallbackBox is get_params's centre crop after ten misses.
func fallbackBox(w, h int, ratio [2]float64) rect {
	inRatio := float64(w) / float64(h)
	cw, ch := w, h
	switch {
	case inRatio < min(ratio[0], ratio[1]):
		ch = int(math.RoundToEven(float64(cw) / min(ratio[0], ratio[1])))
	case inRatio > max(ratio[0], ratio[1]):
		cw = int(math.RoundToEven(float64(ch) * max(ratio[0], ratio[1])))
	}
	return rect{X: (w - cw) / 2, Y: (h - ch) / 2, W: cw, H: ch}
}

// centerBox is torchvision's center_crop box of size cw x ch in a w x h
// image (which must be at least as large: torchvision would pad with
// black, which prep refuses as a silently wrong image).
func centerBox(w, h, cw, ch int) rect {
	return rect{
		X: int(math.RoundToEven(float64(w-cw) / 2)),
		Y: int(math.RoundToEven(float64(h-ch) / 2)),
		W: cw, H: ch,
	}
}

// shorterSide is torchvision's Resize(s) output size for a w x h image:
// the shorter side becomes s, the longer int(s*long/short).
func shorterSide(w, h, s int) (nw, nh int) {
	short, long := min(w, h), max(w, h)
	newLong := int(float64(s) * float64(long) / float64(short))
	if w <= h {
		return s, newLong
	}
	return newLong, s
}
