package prep

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// jpegColorspace is what a JPEG header says its pixels are.
type jpegColorspace int

const (
	jpegColor jpegColorspace = iota // YCbCr or RGB
	jpegGray
	jpegCMYK
	jpegYCCK
)

var (
	jpegMagic = []byte{0xff, 0xd8, 0xff}
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
)

// format names what the first bytes of an encoded value say it is.
func format(b []byte) string {
	switch {
	case bytes.HasPrefix(b, jpegMagic):
		return "jpeg"
	case bytes.HasPrefix(b, pngMagic):
		return "png"
	}
	return ""
}

// describeStart quotes the first bytes of a value that is not an image.
func describeStart(b []byte) string {
	if len(b) == 0 {
		return "an empty value"
	}
	return fmt.Sprintf("starts % x", b[:min(len(b), 8)])
}

// checkSize refuses a zero-sized or oversized image.
func checkSize(w, h int) error {
	switch {
	case w <= 0 || h <= 0:
		return imageErrorf("zero-sized image (%dx%d)", w, h)
	case w > MaxPixels/h:
		return imageErrorf("image of %dx%d pixels, more than prep's limit of %d megapixels", w, h, MaxPixels>>20)
	}
	return nil
}

// planarToRGB converts Caffe's raw Datum pixels, c planes of h rows of w,
// to packed RGB. One channel is replicated (grayscale); three are kept in
// their stored order: convert_imageset stores OpenCV's BGR, which prep
// does not reorder because it cannot tell who wrote the dataset.
func planarToRGB(dst rgb, data []byte, c int) {
	plane := dst.W * dst.H
	for y := range dst.H {
		row := dst.row(y)
		for x := range dst.W {
			i := y*dst.W + x
			if c == 1 {
				row[3*x], row[3*x+1], row[3*x+2] = data[i], data[i], data[i]
				continue
			}
			row[3*x], row[3*x+1], row[3*x+2] = data[i], data[plane+i], data[2*plane+i]
		}
	}
}

// packedToRGB copies HWC pixels of c channels (1 or 3) into dst.
func packedToRGB(dst rgb, data []byte, c int) {
	if c == 3 {
		copy(dst.Pix, data[:3*dst.W*dst.H])
		return
	}
	for i, v := range data[:dst.W*dst.H] {
		dst.Pix[3*i], dst.Pix[3*i+1], dst.Pix[3*i+2] = v, v, v
	}
}

// decodePNG decodes a PNG into buf as RGB, as PIL's convert("RGB") would:
// alpha dropped (not composited), gray and palettes expanded; 16-bit
// samples keep their high byte.
func decodePNG(b []byte, buf *[]byte) (rgb, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return rgb{}, imageErrorf("corrupt PNG: %v", err)
	}
	if err := checkSize(cfg.Width, cfg.Height); err != nil {
		return rgb{}, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return rgb{}, imageErrorf("corrupt PNG: %v", err)
	}
	r := img.Bounds()
	dst := newRGB(buf, r.Dx(), r.Dy())
	if fastPNG(dst, img) {
		return dst, nil
	}
	for y := range dst.H {
		row := dst.row(y)
		for x := range dst.W {
			c := color.NRGBA64Model.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA64)
			row[3*x], row[3*x+1], row[3*x+2] = byte(c.R>>8), byte(c.G>>8), byte(c.B>>8)
		}
	}
	return dst, nil
}

// fastPNG converts the common 8-bit kinds without a colour model call per
// pixel, and reports whether img was one of them.
func fastPNG(dst rgb, img image.Image) bool {
	switch m := img.(type) {
	case *image.NRGBA: // RGBA and RGB PNGs: alpha dropped
		for y := range dst.H {
			src, row := m.Pix[y*m.Stride:], dst.row(y)
			for x := range dst.W {
				row[3*x], row[3*x+1], row[3*x+2] = src[4*x], src[4*x+1], src[4*x+2]
			}
		}
	case *image.RGBA: // opaque RGB PNGs
		for y := range dst.H {
			src, row := m.Pix[y*m.Stride:], dst.row(y)
			for x := range dst.W {
				row[3*x], row[3*x+1], row[3*x+2] = src[4*x], src[4*x+1], src[4*x+2]
			}
		}
	case *image.Gray:
		for y := range dst.H {
			src, row := m.Pix[y*m.Stride:], dst.row(y)
			for x := range dst.W {
				row[3*x], row[3*x+1], row[3*x+2] = src[x], src[x], src[x]
			}
		}
	default:
		return false
	}
	return true
}
