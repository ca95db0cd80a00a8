//go:build cgo

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

func TestParseOptions(t *testing.T) {
	opt, err := parseOptions("batch=8 epochs=2  mode=lmdb remainder=keep direct=true stagger=3\twindow=4MiB prefetch=1 max-span=1MiB max-gap=4096 io-depth=8")
	if err != nil {
		t.Fatal(err)
	}
	lmdb, _ := loader.ParseMode("lmdb")
	want := loader.Options{Batch: 8, Epochs: 2, Mode: lmdb, Remainder: assign.Keep, Direct: true, Stagger: 3,
		Window: 4 << 20, Prefetch: 1, MaxSpan: 1 << 20, MaxGap: 4096, IODepth: 8}
	if opt != want {
		t.Errorf("got %+v\nwant %+v", opt, want)
	}
	if opt, err := parseOptions(""); err != nil || opt != (loader.Options{}) {
		t.Errorf("empty options: %+v, %v; want the zero value (the loader's defaults)", opt, err)
	}
}

func TestParseOptionsBad(t *testing.T) {
	for s, want := range map[string]string{
		"colour=blue":       `"colour": unknown key (known: batch, `,
		"batch=8 batch=9":   `"batch" given twice`,
		"batch":             `"batch": want key=value`,
		"=8":                `"=8": want key=value`,
		"batch=0":           "batch=0: want a whole number of at least 1",
		"epochs=-1":         "epochs=-1: want a whole number",
		"batch=8x":          "batch=8x: want a whole number",
		"mode=fast":         "mode=fast: ",
		"remainder=some":    "remainder=some: ",
		"window=0":          "window=0: want at least 1 byte",
		"max-span=lots":     "max-span=lots: ",
		"direct=maybe":      "direct=maybe: want true or false",
		"Batch=8":           `"Batch": unknown key`,
		"batch=8 io_depth=": `"io_depth": unknown key`,
	} {
		_, err := parseOptions(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", s, err, want)
		}
	}
}

// TestOptionsDocumented: every option key is in include/lmdbio.h's list.
func TestOptionsDocumented(t *testing.T) {
	header, err := os.ReadFile("../../include/lmdbio.h")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range loaderOptions {
		if !strings.Contains(string(header), " *   "+o.name+"=") {
			t.Errorf("option %s is not documented at lmdbio_open in include/lmdbio.h", o.name)
		}
	}
}
