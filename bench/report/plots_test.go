package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteReportAndPlots(t *testing.T) {
	ds, err := readInputs(syntheticInputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	written, err := write(dir, Build(ds, Options{}), true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	// The emulated PFS's peer line is from an old run (consumer sha256, see
	// parse.go) while its results ran touch: two groups, so its file names
	// name the consumer.
	for _, base := range []string{
		"throughput_vs_ranks_cold_local", "throughput_vs_ranks_warm_local", "throughput_vs_ranks_cold_pfsemu_touch",
		"throughput_vs_ranks_cold_pfsemu_sha256", "stacked_study_local", "stacked_study_pfsemu_touch", "first_batch_vs_ranks",
	} {
		for _, ext := range []string{".svg", ".png"} {
			if !slices.Contains(names, base+ext) {
				t.Errorf("%s%s not written (wrote %v)", base, ext, names)
			}
		}
	}
	for _, p := range written {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", p)
		}
		switch filepath.Ext(p) {
		case ".svg":
			if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b, []byte("</svg>")) {
				t.Errorf("%s is not an SVG document", p)
			}
			// Axis labels carry units.
			if strings.HasPrefix(filepath.Base(p), "throughput") && !bytes.Contains(b, []byte("MB/s")) {
				t.Errorf("%s has no MB/s label", p)
			}
		case ".png":
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if r := img.Bounds(); r.Dx() < 800 || r.Dy() < 400 {
				t.Errorf("%s is %v, too small to read", p, r)
			}
		}
	}
}

func TestFileSafe(t *testing.T) {
	tests := map[string]string{"local": "local", "../x/y": "---x-y", "pfs emu": "pfs-emu", "sha256": "sha256"}
	for in, want := range tests {
		if got := fileSafe(in); got != want {
			t.Errorf("fileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
