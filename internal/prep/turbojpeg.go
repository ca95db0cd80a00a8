//go:build cgo

package prep

// #cgo pkg-config: libturbojpeg
// #include <stdlib.h>
// #include <turbojpeg.h>
import "C"

import (
	"strings"
	"unsafe"
)

// jpegDecoder wraps one TurboJPEG decompressor (tjInitDecompress). It is
// not safe for concurrent use; each Worker owns one.
type jpegDecoder struct {
	h C.tjhandle
}

func newJPEGDecoder() (*jpegDecoder, error) {
	h := C.tjInitDecompress()
	if h == nil {
		return nil, imageErrorf("JPEG decoder: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	return &jpegDecoder{h: h}, nil
}

// close frees the decompressor (tjDestroy).
func (d *jpegDecoder) close() {
	if d.h != nil {
		C.tjDestroy(d.h)
		d.h = nil
	}
}

// header reads the size and colour space of a JPEG (tjDecompressHeader3).
func (d *jpegDecoder) header(jpeg []byte) (width, height int, cs jpegColorspace, err error) {
	if d.h == nil {
		return 0, 0, 0, imageErrorf("no JPEG decoder (out of memory)")
	}
	if len(jpeg) == 0 {
		return 0, 0, 0, imageErrorf("empty value, not a JPEG")
	}
	var w, h, samp, space C.int
	if C.tjDecompressHeader3(d.h, (*C.uchar)(unsafe.Pointer(&jpeg[0])), C.ulong(len(jpeg)),
		&w, &h, &samp, &space) != 0 {
		return 0, 0, 0, d.err("corrupt JPEG header")
	}
	switch space {
	case C.TJCS_GRAY:
		cs = jpegGray
	case C.TJCS_CMYK:
		cs = jpegCMYK
	case C.TJCS_YCCK:
		cs = jpegYCCK
	default:
		cs = jpegColor
	}
	return int(w), int(h), cs, nil
}

// decode decompresses jpeg into dst as packed RGB of width x height, the
// JPEG's size scaled down in the DCT domain (tjDecompress2 picks the
// scaling factor from the size). Any libjpeg warning, such as a truncated
// stream, is an error: the image would be partly grey.
func (d *jpegDecoder) decode(jpeg, dst []byte, width, height int) error {
	if len(dst) < 3*width*height || width <= 0 || height <= 0 {
		panic("prep: JPEG destination too small")
	}
	if C.tjDecompress2(d.h, (*C.uchar)(unsafe.Pointer(&jpeg[0])), C.ulong(len(jpeg)),
		(*C.uchar)(unsafe.Pointer(&dst[0])), C.int(width), C.int(3*width), C.int(height),
		C.TJPF_RGB, C.TJFLAG_STOPONWARNING) != 0 {
		return d.err("corrupt JPEG")
	}
	return nil
}

// err describes the decompressor's last error (tjGetErrorStr2) and
// replaces the decompressor: libjpeg-turbo 2.1 leaves one that failed in
// the middle of a stream in a state that fails the next image too.
func (d *jpegDecoder) err(what string) error {
	msg := strings.TrimSpace(C.GoString(C.tjGetErrorStr2(d.h)))
	C.tjDestroy(d.h)
	d.h = C.tjInitDecompress()
	if d.h == nil {
		// Out of memory for a 100 KB structure: say so at the next image.
		return imageErrorf("%s: %s (and no new JPEG decoder)", what, msg)
	}
	return imageErrorf("%s: %s", what, msg)
}
