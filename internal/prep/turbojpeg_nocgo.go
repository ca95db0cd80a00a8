//go:build !cgo

package prep

// Without cgo there is no libjpeg-turbo: JPEG records are refused, PNG
// and raw pixels still work.

type jpegDecoder struct{}

func newJPEGDecoder() (*jpegDecoder, error) { return &jpegDecoder{}, nil }

func (d *jpegDecoder) close() {}

func (d *jpegDecoder) header([]byte) (int, int, jpegColorspace, error) {
	return 0, 0, 0, imageErrorf("JPEG: this build has no libjpeg-turbo (built without cgo)")
}

func (d *jpegDecoder) decode(_, _ []byte, _, _ int) error {
	return imageErrorf("JPEG: this build has no libjpeg-turbo (built without cgo)")
}
