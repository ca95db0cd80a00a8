package bench

import (
	"testing"
	"time"
)

func TestParseWorkload(t *testing.T) {
	cases := []struct {
		in      string
		batch   int
		compute time.Duration
		thresh  float64
		wantErr bool
	}{
		{in: "none"},
		{in: ""},
		{in: "resnet50", batch: 64, compute: 103 * time.Millisecond, thresh: 0.9},
		{in: "unet3d", batch: 7, compute: 323 * time.Millisecond, thresh: 0.9},
		{in: "cosmoflow", batch: 1, compute: 3500 * time.Microsecond, thresh: 0.7},
		{in: "bert", wantErr: true},
		{in: "ResNet50", wantErr: true},
	}
	for _, c := range cases {
		w, err := ParseWorkload(c.in)
		if (err != nil) != c.wantErr {
			t.Fatalf("ParseWorkload(%q) err = %v", c.in, err)
		}
		if c.wantErr {
			continue
		}
		if w.Batch != c.batch || w.Compute != c.compute || w.Threshold != c.thresh || w.Enabled() != (c.batch > 0) {
			t.Errorf("ParseWorkload(%q) = %+v", c.in, w)
		}
	}
}

func TestAU(t *testing.T) {
	cases := []struct{ compute, wall, want float64 }{
		{10.3, 11.0, 10.3 / 11.0},
		{1, 1, 1},
		{0, 5, 0},
		{1, 0, 0},
	}
	for _, c := range cases {
		if got := AU(c.compute, c.wall); got != c.want {
			t.Errorf("AU(%v, %v) = %v, want %v", c.compute, c.wall, got, c.want)
		}
	}
}

func TestMaxAccelerators(t *testing.T) {
	cases := []struct {
		name   string
		points []AUPoint
		thresh float64
		want   AUPoint
		ok     bool
	}{
		{
			name:   "storage keeps three busy",
			points: []AUPoint{{1, 1, 0.99}, {2, 1, 0.97}, {3, 1, 0.91}, {4, 1, 0.72}},
			thresh: 0.9, want: AUPoint{3, 1, 0.91}, ok: true,
		},
		{
			name:   "exactly at the threshold passes",
			points: []AUPoint{{1, 1, 0.9}, {2, 1, 0.89}},
			thresh: 0.9, want: AUPoint{1, 1, 0.9}, ok: true,
		},
		{
			name:   "a noisy dip does not hide a larger passing count",
			points: []AUPoint{{1, 1, 0.95}, {2, 1, 0.85}, {3, 1, 0.92}},
			thresh: 0.9, want: AUPoint{3, 1, 0.92}, ok: true,
		},
		{
			name:   "more nodes win a tie",
			points: []AUPoint{{2, 1, 0.95}, {2, 2, 0.93}},
			thresh: 0.9, want: AUPoint{2, 2, 0.93}, ok: true,
		},
		{
			name:   "none passes",
			points: []AUPoint{{1, 1, 0.6}},
			thresh: 0.7,
		},
		{name: "no points", thresh: 0.9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := MaxAccelerators(c.points, c.thresh)
			if ok != c.ok || got != c.want {
				t.Fatalf("MaxAccelerators = %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
