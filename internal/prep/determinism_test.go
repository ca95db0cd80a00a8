package prep

import (
	"bytes"
	"sync"
	"testing"
)

// A record's output depends on (seed, epoch, record) alone: not on the
// worker, the order records are prepared in, or what was prepared before.
func TestDeterminism(t *testing.T) {
	jpegs := [][]byte{encoded(synthJPEG(t, 500, 375, false)), encoded(synthJPEG(t, 375, 500, false)),
		encoded(synthJPEG(t, 1000, 750, false))}
	p := mustParse(t, "decode,random_resized_crop:64,flip,normalize:imagenet,chw,float16")
	n := p.SampleBytes(64, 64)
	type job struct {
		img int
		s   Sample
	}
	var jobs []job
	for r := range int64(30) {
		jobs = append(jobs, job{int(r) % len(jpegs), Sample{Seed: 9, Epoch: int(r) % 2, Record: r}})
	}
	run := func(w *Worker, j job) []byte {
		dst := make([]byte, n)
		if _, err := w.Datum(jpegs[j.img], j.s, dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	w1 := mustParseWorker(t, p.String())
	want := map[job][]byte{}
	for _, j := range jobs {
		want[j] = run(w1, j)
	}
	// In reverse order, on two workers at once.
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := p.NewWorker()
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			for i := len(jobs) - 1 - k; i >= 0; i -= 2 {
				if got := run(w, jobs[i]); !bytes.Equal(got, want[jobs[i]]) {
					t.Errorf("record %d differs when prepared by another worker in another order", jobs[i].s.Record)
				}
			}
		}()
	}
	wg.Wait()
	// Another seed, epoch or record number gives another crop.
	base := jobs[3]
	for _, other := range []Sample{{Seed: 10, Epoch: base.s.Epoch, Record: base.s.Record},
		{Seed: base.s.Seed, Epoch: base.s.Epoch + 2, Record: base.s.Record}} {
		if bytes.Equal(run(w1, job{base.img, other}), want[base]) {
			t.Errorf("%+v gives the same sample as %+v", other, base.s)
		}
	}
}

// The random draws cover torchvision's ranges, and the fallback is its
// centre crop.
func TestRandomResizedBox(t *testing.T) {
	for rec := range int64(2000) {
		r := newStream(Sample{Seed: 1, Record: rec}, 1)
		b := randomResizedBox(&r, 500, 375, defaultScale, defaultRatio)
		if b.X < 0 || b.Y < 0 || b.X+b.W > 500 || b.Y+b.H > 375 || b.W < 1 || b.H < 1 {
			t.Fatalf("record %d: box %+v outside 500x375", rec, b)
		}
		// The rounding of w and h to pixels moves area and ratio a little.
		if f := float64(b.W*b.H) / (500 * 375); f < 0.075 || f > 1 {
			t.Fatalf("record %d: box %+v covers %.3f of the image", rec, b, f)
		}
	}
	for _, c := range []struct {
		w, h int
		want rect
	}{
		{1000, 10, rect{X: 493, Y: 0, W: 13, H: 10}}, // wider than 4/3: height kept
		{10, 1000, rect{X: 0, Y: 493, W: 10, H: 13}}, // taller than 3/4: width kept
		{1, 1, rect{W: 1, H: 1}},
	} {
		// Widths this extreme miss ten times (scale below 0.08 is needed).
		r := newStream(Sample{}, 1)
		if got := randomResizedBox(&r, c.w, c.h, defaultScale, defaultRatio); got != c.want && c.w != 1 {
			t.Errorf("%dx%d: %+v, want the fallback %+v", c.w, c.h, got, c.want)
		}
		if got := fallbackBox(c.w, c.h, defaultRatio); got != c.want {
			t.Errorf("fallback of %dx%d: %+v, want %+v", c.w, c.h, got, c.want)
		}
	}
	if got := centerBox(451, 333, 224, 224); got != (rect{X: 114, Y: 54, W: 224, H: 224}) {
		t.Errorf("centerBox rounds half to even as Python: %+v", got)
	}
}

// float16Bits rounds as IEEE 754 (checked against known encodings).
func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {1e-8, 0},
		{5.960464477539063e-08, 0x0001}, {6.097555160522461e-05, 0x03ff}, {6.103515625e-05, 0x0400},
		{1.0009765625, 0x3c01}, {1.00048828125, 0x3c00}, {1.00146484375, 0x3c02}, // ties to even
		{0.333333343, 0x3555}, {-2.1179039478302, 0xc03c},
	} {
		if got := float16Bits(c.f); got != c.want {
			t.Errorf("float16Bits(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}
