package cli

import (
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// TestLoaderFlagDefaults: the command line's defaults are the Go API's.
func TestLoaderFlagDefaults(t *testing.T) {
	var f LoaderFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Register(fs, assign.Keep.String())
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := loader.Options{Mode: loader.DefaultMode, Batch: loader.DefaultBatch, Epochs: loader.DefaultEpochs, Remainder: assign.Keep,
		Stagger: loader.DefaultStagger, Window: loader.DefaultWindow, Prefetch: loader.DefaultPrefetch,
		MaxSpan: loader.DefaultMaxSpan, MaxGap: loader.DefaultMaxGap, IODepth: loader.DefaultIODepth,
		ChunkBytes: loader.DefaultChunkBytes, ChunkWindow: loader.DefaultChunkWindow}
	if got != want {
		t.Errorf("flag defaults %+v\nGo API        %+v", got, want)
	}
	if loader.DefaultStagger != 4 {
		t.Errorf("default stagger %d, want 4 (readers on storage at once)", loader.DefaultStagger)
	}
}
