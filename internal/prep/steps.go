package prep

import "math"

// dctScale returns the factor (1, 2, 4 or 8) by which to shrink a w x h
// JPEG while decoding: the largest that leaves the first step after decode
// at least as many source pixels as it outputs in each direction. Only a
// random_resized_crop or resize as that step shrinks; anything else needs
// the full image.
func (p *Pipeline) dctScale(w, h int, s Sample) int {
	if len(p.steps) < 2 {
		return 1
	}
	region, ow, oh := p.firstRegion(w, h, s)
	if ow == 0 {
		return 1
	}
	for _, k := range []int{8, 4, 2} {
		if float64(region.W)/float64(k) >= float64(ow) && float64(region.H)/float64(k) >= float64(oh) {
			return k
		}
	}
	return 1
}

// firstRegion returns the source box and output size of the step after
// decode when it is a random_resized_crop or resize (ow 0 otherwise). Its
// random draws are those geometry makes: both are a function of the sample.
func (p *Pipeline) firstRegion(w, h int, s Sample) (region rect, ow, oh int) {
	st := p.steps[1]
	switch st.Op {
	case OpRandomResizedCrop:
		r := newStream(s, 1)
		return randomResizedBox(&r, w, h, defaultScale, defaultRatio), st.Size, st.Size
	case OpResize:
		ow, oh = shorterSide(w, h, st.Size)
		return rect{W: w, H: h}, ow, oh
	}
	return rect{}, 0, 0
}

// geometry runs the crops, resizes and flips on img, the source image
// scaled down by k (k > 1 only when dctScale chose it for the first step),
// and returns the final image, which lives in one of the worker's buffers.
// srcW x srcH is the full size: the first step's draws must not depend on
// the scale.
func (w *Worker) geometry(img rgb, k, srcW, srcH int, s Sample) (rgb, error) {
	cur := 0 // index of the buffer img lives in
	for i, st := range w.p.steps {
		switch st.Op {
		case OpCenterCrop:
			if st.Size > img.W || st.Size > img.H {
				return rgb{}, imageErrorf("center_crop:%d of a %dx%d image: the crop is larger than the image", st.Size, img.W, img.H)
			}
			b := centerBox(img.W, img.H, st.Size, st.Size)
			img = img.crop(b.X, b.Y, b.W, b.H)
		case OpRandomResizedCrop:
			r := newStream(s, i)
			b := randomResizedBox(&r, srcW, srcH, defaultScale, defaultRatio)
			img, cur = w.resampleBox(img, cur, k, b, st.Size, st.Size)
		case OpResize:
			nw, nh := shorterSide(srcW, srcH, st.Size)
			if err := checkSize(nw, nh); err != nil {
				return rgb{}, imageErrorf("resize:%d of a %dx%d image: %v", st.Size, srcW, srcH, err)
			}
			img, cur = w.resampleBox(img, cur, k, rect{W: srcW, H: srcH}, nw, nh)
		case OpFlip:
			r := newStream(s, i)
			if r.coin() {
				img.flipInPlace()
			}
		}
		if st.Op.geometric() {
			k = 1
			srcW, srcH = img.W, img.H
		}
	}
	return img, nil
}

// resampleBox resizes box b of the source (in full-size pixels) to ow x oh.
// img is the source scaled down by k and lives in buffer cur; the result
// goes into another buffer, whose index is returned. At k = 1 this is
// torchvision's resized_crop exactly: crop, then resize the crop. At k > 1
// the crop is the scaled box widened to whole pixels, and the filter maps
// the exact (fractional) box.
func (w *Worker) resampleBox(img rgb, cur, k int, b rect, ow, oh int) (rgb, int) {
	fk := float64(k)
	x0 := int(math.Floor(float64(b.X) / fk))
	y0 := int(math.Floor(float64(b.Y) / fk))
	x1 := min(int(math.Ceil(float64(b.X+b.W)/fk)), img.W)
	y1 := min(int(math.Ceil(float64(b.Y+b.H)/fk)), img.H)
	view := img.crop(x0, y0, x1-x0, y1-y0)
	fb := box{
		x0: float64(b.X)/fk - float64(x0), y0: float64(b.Y)/fk - float64(y0),
		x1: float64(b.X+b.W)/fk - float64(x0), y1: float64(b.Y+b.H)/fk - float64(y0),
	}
	next := 1
	if cur == 1 {
		next = 2
	}
	return w.rs.resample(view, fb, ow, oh, &w.bufs[next]), next
}
