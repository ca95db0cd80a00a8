package prep

import (
	"errors"
	"testing"
)

// FuzzDatum: whatever a record holds, preparing it returns a sample or an
// ErrImage, never a panic or another kind of error.
func FuzzDatum(f *testing.F) {
	f.Add(encoded(synthJPEG(f, 40, 30, false)))
	f.Add(encoded(synthJPEG(f, 17, 9, true)))
	f.Add(encoded(pngOf(f)))
	f.Add(raw(3, 4, 5, make([]byte, 60)))
	f.Add(raw(1, 2, 2, []byte{1, 2, 3, 4}))
	p := mustParse(f, "decode,random_resized_crop:16,flip,normalize:imagenet,float16")
	q := mustParse(f, "decode,center_crop:8,resize:5")
	f.Fuzz(func(t *testing.T, value []byte) {
		for _, pl := range []*Pipeline{p, q} {
			w, err := pl.NewWorker()
			if err != nil {
				t.Fatal(err)
			}
			dst := make([]byte, 1<<16)
			if _, err := w.Datum(value, Sample{Record: int64(len(value))}, dst); err != nil && !errors.Is(err, ErrImage) {
				t.Fatalf("error %v is not an ErrImage", err)
			}
			w.Close()
		}
	})
}
