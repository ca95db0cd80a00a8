//go:build cgo

package gen

import (
	"bytes"
	"compress/flate"
	"fmt"
	"image"
	"image/jpeg"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/datum"
)

// A JPEG dataset holds encoded Datums of decodable photographs of
// ImageNet-like sizes, labelled as their keys say, the same for the same
// seed and inserted in any order.
func TestWriteJPEG(t *testing.T) {
	opt := Options{Records: 24, MeanSize: 110 << 10, Seed: 7, JPEG: true, Order: Random, TxnRecords: 5}
	dir := filepath.Join(t.TempDir(), "db")
	sum, err := Write(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	var pixels, jpegBytes int64
	landscape, portrait := 0, 0
	check := func(key, value []byte) error {
		if err := checkRecord(opt)(key, value); err != nil {
			return err
		}
		d, err := datum.Unmarshal(value)
		if err != nil {
			return err
		}
		synset := fmt.Sprintf("_n%08d/", firstSynset+int(d.Label)*1009)
		if !d.Encoded || d.Channels != 0 || d.Label < 0 || d.Label >= numClasses || !strings.Contains(string(key), synset) {
			return fmt.Errorf("datum encoded=%v %dx%dx%d label %d", d.Encoded, d.Channels, d.Height, d.Width, d.Label)
		}
		img, err := jpeg.Decode(bytes.NewReader(d.Data))
		if err != nil {
			return fmt.Errorf("value does not decode: %w", err)
		}
		b := img.Bounds()
		if _, ok := img.(*image.YCbCr); !ok || max(b.Dx(), b.Dy()) < 300 || max(b.Dx(), b.Dy()) > 1000 || min(b.Dx(), b.Dy()) < 150 {
			return fmt.Errorf("a %T of %dx%d, want a colour photograph of 300 to 1000 pixels", img, b.Dx(), b.Dy())
		}
		if b.Dx() >= b.Dy() {
			landscape++
		} else {
			portrait++
		}
		pixels += int64(b.Dx() * b.Dy())
		jpegBytes += int64(len(d.Data))
		return nil
	}
	got := readBack(t, dir, check)
	if got.records != opt.Records || got.bytes != sum.Bytes {
		t.Fatalf("read %d records, %d bytes; wrote %+v", got.records, got.bytes, sum)
	}
	// Photographs at quality 90 take 0.2-1 byte a pixel (ImageNet's average
	// is about 0.8, scikit-learn's sample photographs 0.2-0.4); noise
	// would take 2 or more, a flat image well under 0.1.
	if bpp := float64(jpegBytes) / float64(pixels); bpp < 0.15 || bpp > 1.2 {
		t.Errorf("%.2f bytes per pixel: not photograph-like", bpp)
	}
	if landscape == 0 || portrait == 0 {
		t.Errorf("%d landscape and %d portrait photographs: want both", landscape, portrait)
	}
	// The same options give the same dataset, in key order too.
	dir2 := filepath.Join(t.TempDir(), "db")
	opt.Order, opt.TxnRecords = KeyOrder, 0
	if _, err := Write(dir2, opt); err != nil {
		t.Fatal(err)
	}
	if again := readBack(t, dir2, nil); again.digest != got.digest {
		t.Error("the same seed gave another dataset")
	}
}

// Photographs are not noise: their pixels compress like an image's.
func TestPhotoContent(t *testing.T) {
	img, err := jpeg.Decode(bytes.NewReader(Photo(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	ycc := img.(*image.YCbCr)
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	w.Write(ycc.Y)
	w.Close()
	if r := float64(b.Len()) / float64(len(ycc.Y)); r > 0.95 || r < 0.2 {
		t.Errorf("luma deflates to %.2f of its size: want the texture of a photograph, neither noise nor flat", r)
	}
	if !bytes.Equal(Photo(1, 3), Photo(1, 3)) || bytes.Equal(Photo(1, 3), Photo(2, 3)) {
		t.Error("Photo is not a function of (seed, i)")
	}
}
