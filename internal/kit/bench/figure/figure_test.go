package figure

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestWrite(t *testing.T) {
	p := plot.New()
	line, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 4}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(line)
	l := NewLegend()
	l.Add("a line", line)
	dir := t.TempDir()
	paths, err := Write(dir, Figure{Name: "f", Plot: p, Legend: l})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != filepath.Join(dir, "f.svg") || paths[1] != filepath.Join(dir, "f.png") {
		t.Fatalf("paths %v", paths)
	}
	svg, _ := os.ReadFile(paths[0])
	if !bytes.Contains(svg, []byte("</svg>")) || !bytes.Contains(svg, []byte("a line")) {
		t.Error("SVG without the plot or its legend")
	}
	b, _ := os.ReadFile(paths[1])
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 800 {
		t.Errorf("PNG: %v", err)
	}
	if _, err := Write(filepath.Join(dir, "missing", "dir"), Figure{Name: "g", Plot: p, Legend: l}); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	all, err := WriteAll(filepath.Join(dir, "new", "dir"), []Figure{{Name: "a", Plot: p, Legend: l}, {Name: "b", Plot: p, Legend: l}})
	if err != nil || len(all) != 4 {
		t.Errorf("WriteAll: %v, %v", all, err)
	}
}

func TestLog10Ticks(t *testing.T) {
	var labels []string
	for _, tk := range (Log10Ticks{}).Ticks(-1.5, 2.5) { // 0.0316 .. 316
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100", "200"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
}
