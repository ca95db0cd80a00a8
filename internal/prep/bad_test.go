package prep

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/datum"
)

// synthJPEG encodes a w x h test picture (gradients and a disc) with Go's
// encoder, so that these tests need no Python.
func synthJPEG(t testing.TB, w, h int, gray bool) []byte {
	t.Helper()
	var img image.Image
	if gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				g.SetGray(x, y, color.Gray{Y: uint8((x*3 + y) % 256)})
			}
		}
		img = g
	} else {
		c := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				d := (x-w/2)*(x-w/2) + (y-h/2)*(y-h/2)
				c.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8(min(d/64, 255)), 255})
			}
		}
		img = c
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encoded(b []byte) []byte {
	d := datum.Datum{Data: b, Label: 3, Encoded: true}
	return d.Marshal(nil)
}

func raw(c, h, w int, data []byte) []byte {
	d := datum.Datum{Channels: int32(c), Height: int32(h), Width: int32(w), Data: data, Label: 5}
	return d.Marshal(nil)
}

// withSOFSize returns a copy of a baseline JPEG whose frame header claims
// w x h pixels.
func withSOFSize(t *testing.T, j []byte, w, h int) []byte {
	t.Helper()
	j = bytes.Clone(j)
	i := bytes.Index(j, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0 marker")
	}
	j[i+5], j[i+6], j[i+7], j[i+8] = byte(h>>8), byte(h), byte(w>>8), byte(w)
	return j
}

// Every bad record is one ErrImage line naming the problem, the slot is
// left as it was, and nothing panics.
func TestBadInput(t *testing.T) {
	good := synthJPEG(t, 320, 240, false)
	corrupt := bytes.Clone(good)
	for i := len(corrupt) / 3; i < len(corrupt)/3+64; i++ {
		corrupt[i] = 0xff // a run of markers in the entropy-coded data
	}
	cases := []struct {
		name, spec string
		value      []byte
		want       string
	}{
		{"not a Datum", "decode", []byte{0xff, 0xff, 0xff}, "not a Caffe Datum"},
		{"not an image", "decode", encoded([]byte("GIF89a, or any other bytes")), "not a JPEG or PNG image (starts 47 49 46"},
		{"empty", "decode", encoded(nil), "not a JPEG or PNG image (an empty value)"},
		{"truncated JPEG", "decode", encoded(good[:len(good)/2]), "corrupt JPEG"},
		{"truncated header", "decode", encoded(good[:40]), "corrupt JPEG header"},
		{"corrupt JPEG", "decode", encoded(corrupt), "corrupt JPEG"},
		{"zero-height JPEG", "decode", encoded(withSOFSize(t, good, 320, 0)), "JPEG"},
		{"huge JPEG", "decode", encoded(withSOFSize(t, good, 65000, 65000)), "megapixels"},
		{"truncated PNG", "decode", encoded(pngOf(t)[:100]), "corrupt PNG"},
		{"zero-sized raw", "decode", raw(3, 0, 5, nil), "zero-sized image (5x0)"},
		{"short raw", "decode", raw(3, 4, 4, make([]byte, 47)), "holds 47 bytes, want 48"},
		{"raw of 4 channels", "decode", raw(4, 2, 2, make([]byte, 16)), "raw Datum of 4 channels"},
		{"float Datum", "decode", (&datum.Datum{Channels: 1, Height: 1, Width: 2, FloatData: []float32{1, 2}}).Marshal(nil),
			"a float_data Datum holds no pixels"},
		{"crop larger than the image", "decode,center_crop:300", encoded(good), "center_crop:300 of a 320x240 image: the crop is larger than the image"},
		{"resize too large", "decode,resize:8192", raw(1, 1, 2000, make([]byte, 2000)), "resize:8192 of a 2000x1 image"},
		{"slot too small", "decode,resize:300", encoded(good), "the 400x300 output needs 360000 bytes, the slot holds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.spec)
			w, err := p.NewWorker()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			dst := bytes.Repeat([]byte{0xaa}, 300*300*3)
			_, err = w.Datum(c.value, Sample{}, dst)
			if err == nil || !errors.Is(err, ErrImage) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one ErrImage line with %q", err, c.want)
			}
			if !bytes.Equal(dst, bytes.Repeat([]byte{0xaa}, len(dst))) {
				t.Fatal("the slot was written despite the error")
			}
			// The worker stays usable after a bad record.
			if _, err := mustParse(t, "decode").NewWorker(); err != nil {
				t.Fatal(err)
			}
			if c.spec != "decode" {
				return
			}
			if _, err := w.Datum(encoded(good), Sample{}, make([]byte, 4<<20)); err != nil {
				t.Fatalf("a good record after a bad one: %v", err)
			}
		})
	}
}

func pngOf(t testing.TB) []byte {
	var b bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A CMYK JPEG is refused (Pillow's conversion is naive; ICC-aware
// converters give other colours): the stated policy. Grayscale is
// replicated to RGB as PIL's convert("RGB").
func TestColourSpaces(t *testing.T) {
	p := mustParse(t, "decode")
	w, err := p.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	gray := synthJPEG(t, 64, 48, true)
	dst := make([]byte, 64*48*3)
	r, err := w.Datum(encoded(gray), Sample{}, dst)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := jpeg.Decode(bytes.NewReader(gray))
	if err != nil {
		t.Fatal(err)
	}
	far := 0
	for i := range r.Width * r.Height {
		g := ref.(*image.Gray).Pix[i]
		if dst[3*i] != dst[3*i+1] || dst[3*i] != dst[3*i+2] {
			t.Fatalf("pixel %d of a grayscale JPEG is not gray: %v", i, dst[3*i:3*i+3])
		}
		if d := int(dst[3*i]) - int(g); d > 2 || d < -2 {
			far++
		}
	}
	if far > 0 {
		t.Errorf("%d gray pixels differ from Go's decoder by more than 2", far)
	}
	dir := ensurePhotos()
	if dir == "" {
		t.Log("CMYK case skipped: " + photos.why)
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, "cmyk.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Datum(encoded(b), Sample{}, make([]byte, 1<<20)); err == nil || !strings.Contains(err.Error(), "CMYK JPEG: unsupported colour space") {
		t.Errorf("CMYK JPEG: %v, want the unsupported colour space error", err)
	}
}

// Pixels takes HDF5 rows, HWC, and leaves them as they were.
func TestPixels(t *testing.T) {
	p := mustParse(t, "decode,center_crop:2,flip")
	w, err := p.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} // 2x2 RGB
	keep := bytes.Clone(row)
	flipped := 0
	for rec := range int64(64) {
		dst := make([]byte, 12)
		if _, err := w.Pixels(row, 2, 2, 3, Sample{Record: rec}, dst); err != nil {
			t.Fatal(err)
		}
		switch {
		case bytes.Equal(dst, row):
		case bytes.Equal(dst, []byte{4, 5, 6, 1, 2, 3, 10, 11, 12, 7, 8, 9}):
			flipped++
		default:
			t.Fatalf("record %d: %v", rec, dst)
		}
	}
	if flipped < 16 || flipped > 48 {
		t.Errorf("%d of 64 records flipped, want about half", flipped)
	}
	if !bytes.Equal(row, keep) {
		t.Error("Pixels modified its input")
	}
	gray := []byte{10, 20, 30, 40}
	dst := make([]byte, 12)
	if _, err := mustParseWorker(t, "decode").Pixels(gray, 2, 2, 1, Sample{}, dst); err != nil ||
		!bytes.Equal(dst, []byte{10, 10, 10, 20, 20, 20, 30, 30, 30, 40, 40, 40}) {
		t.Errorf("grayscale row: %v %v", dst, err)
	}
	if _, err := w.Pixels(gray, 2, 2, 2, Sample{}, dst); err == nil || !errors.Is(err, ErrImage) {
		t.Errorf("2 channels: %v, want ErrImage", err)
	}
	// Raw Datums are channel-major: planes R, G, B as stored.
	d := raw(3, 1, 2, []byte{1, 2, 3, 4, 5, 6})
	if _, err := mustParseWorker(t, "decode").Datum(d, Sample{}, dst); err != nil || !bytes.Equal(dst[:6], []byte{1, 3, 5, 2, 4, 6}) {
		t.Errorf("raw Datum: %v %v", dst[:6], err)
	}
}

func mustParseWorker(t *testing.T, spec string) *Worker {
	w, err := mustParse(t, spec).NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}
