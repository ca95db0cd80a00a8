package prep

import (
	"github.com/lmdbio/lmdbio/internal/datum"
)

// Worker prepares records one at a time with its own decoder and scratch
// buffers (which grow to the largest image seen and are then reused). It
// is not safe for concurrent use: each prep thread owns one.
type Worker struct {
	p    *Pipeline
	jpeg *jpegDecoder
	rs   resampler
	// bufs hold the decoded image and two images a resize alternates
	// between.
	bufs [3][]byte
}

// Result describes one prepared sample.
type Result struct {
	Label         int32 // the Datum's label (0 for pixels)
	Width, Height int   // of the output image
	Bytes         int   // written at the start of the slot
}

// NewWorker returns a worker for p; Close frees it.
func (p *Pipeline) NewWorker() (*Worker, error) {
	d, err := newJPEGDecoder()
	if err != nil {
		return nil, err
	}
	return &Worker{p: p, jpeg: d}, nil
}

// Close frees the worker's decoder. The worker is unusable afterwards.
func (w *Worker) Close() {
	if w.jpeg != nil {
		w.jpeg.close()
		w.jpeg = nil
	}
}

// Datum prepares a Caffe Datum value into dst and returns its label. The
// value is a raw Datum (channels 1 or 3, Caffe's channel-major pixels) or
// an encoded one (a JPEG or PNG file). dst is not modified on error.
func (w *Worker) Datum(value []byte, s Sample, dst []byte) (Result, error) {
	d, err := datum.Unmarshal(value)
	if err != nil {
		return Result{}, imageErrorf("not a Caffe Datum: %v", err)
	}
	var img rgb
	var full decoded
	if d.Encoded {
		img, full, err = w.decodeEncoded(d.Data, s)
	} else {
		img, err = w.raw(d)
		full = decoded{scale: 1, w: img.W, h: img.H}
	}
	if err != nil {
		return Result{}, err
	}
	r, err := w.finish(img, full, s, dst)
	r.Label = d.Label
	return r, err
}

// Pixels prepares an image of height x width x channels bytes, packed
// (HWC) as an HDF5 image row stores it, channels 1 (replicated to RGB) or 3.
// pix is only read. dst is not modified on error.
func (w *Worker) Pixels(pix []byte, height, width, channels int, s Sample, dst []byte) (Result, error) {
	if err := checkSize(width, height); err != nil {
		return Result{}, err
	}
	if channels != 1 && channels != 3 {
		return Result{}, imageErrorf("%d channels: want 1 (grayscale) or 3 (RGB)", channels)
	}
	if len(pix) != height*width*channels {
		return Result{}, imageErrorf("%d bytes of pixels, want %dx%dx%d = %d", len(pix), height, width, channels, height*width*channels)
	}
	img := newRGB(&w.bufs[0], width, height)
	packedToRGB(img, pix, channels)
	return w.finish(img, decoded{scale: 1, w: width, h: height}, s, dst)
}

// raw unpacks a raw Datum's pixels into the decode buffer.
func (w *Worker) raw(d datum.Datum) (rgb, error) {
	c, h, wd := int(d.Channels), int(d.Height), int(d.Width)
	switch {
	case len(d.Data) == 0 && len(d.FloatData) > 0:
		return rgb{}, imageErrorf("a float_data Datum holds no pixels")
	case c != 1 && c != 3:
		return rgb{}, imageErrorf("raw Datum of %d channels: want 1 (grayscale) or 3", c)
	}
	if err := checkSize(wd, h); err != nil {
		return rgb{}, err
	}
	if len(d.Data) != c*h*wd {
		return rgb{}, imageErrorf("raw Datum of %dx%dx%d holds %d bytes, want %d", c, h, wd, len(d.Data), c*h*wd)
	}
	img := newRGB(&w.bufs[0], wd, h)
	planarToRGB(img, d.Data, c)
	return img, nil
}

// decoded says how an image was decoded: scaled down by scale (1, 2, 4
// or 8) from a w x h source.
type decoded struct{ scale, w, h int }

// decodeEncoded decodes a JPEG or PNG into the decode buffer, a JPEG
// scaled down when the first step allows it.
func (w *Worker) decodeEncoded(b []byte, s Sample) (rgb, decoded, error) {
	switch format(b) {
	case "png":
		img, err := decodePNG(b, &w.bufs[0])
		return img, decoded{scale: 1, w: img.W, h: img.H}, err
	case "jpeg":
	default:
		return rgb{}, decoded{}, imageErrorf("not a JPEG or PNG image (%s)", describeStart(b))
	}
	iw, ih, cs, err := w.jpeg.header(b)
	if err != nil {
		return rgb{}, decoded{}, err
	}
	switch cs {
	case jpegCMYK, jpegYCCK:
		return rgb{}, decoded{}, imageErrorf("CMYK JPEG: unsupported colour space (convert the image to RGB)")
	}
	if err := checkSize(iw, ih); err != nil {
		return rgb{}, decoded{}, err
	}
	k := 1
	if !w.p.FullDecode {
		k = w.p.dctScale(iw, ih, s)
	}
	sw, sh := (iw+k-1)/k, (ih+k-1)/k // TJSCALED with 1/k
	img := newRGB(&w.bufs[0], sw, sh)
	if err := w.jpeg.decode(b, img.Pix, sw, sh); err != nil {
		return rgb{}, decoded{}, err
	}
	return img, decoded{scale: k, w: iw, h: ih}, nil
}

// finish runs the steps after decode on img and writes the output into
// dst.
func (w *Worker) finish(img rgb, full decoded, s Sample, dst []byte) (Result, error) {
	out, err := w.geometry(img, full.scale, full.w, full.h, s)
	if err != nil {
		return Result{}, err
	}
	n := w.p.SampleBytes(out.W, out.H)
	if len(dst) < n {
		return Result{}, &SlotError{W: out.W, H: out.H, Need: n, Have: len(dst)}
	}
	w.p.out.write(out, dst[:n])
	return Result{Width: out.W, Height: out.H, Bytes: n}, nil
}
