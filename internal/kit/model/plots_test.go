package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/kit/bench/figure"
)

func TestFigures(t *testing.T) {
	w, _ := CIFARWorkload()
	points := Sweep(Lustre().Params, Contenders(), []int{1, 4, 16, 64, 256}, 36, w, DefaultLoader)
	if len(points) != len(Contenders())*5 {
		t.Fatalf("%d points", len(points))
	}
	figs, err := SweepFigures(points, "Lustre-like")
	if err != nil {
		t.Fatal(err)
	}
	obs := Synthesize(emulated(), testDesign([]int{1, 2}), 0.02, 1)
	fit, err := FitFigure(Residuals(emulated(), obs[:10]), Residuals(emulated(), obs[10:20]), "fit")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range append(figs, fit) {
		paths, err := figure.Write(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(paths[0])
		if !strings.Contains(string(svg), "</svg>") {
			t.Errorf("%s is not an SVG", paths[0])
		}
	}
	for _, name := range []string{"model_mb_per_s.svg", "model_seconds.png", "model_fit.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := SweepFigures(nil, "empty"); err == nil {
		t.Error("an empty sweep plotted")
	}
}
