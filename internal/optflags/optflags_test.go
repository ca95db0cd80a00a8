package optflags

import (
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/spf13/pflag"
)

func parse(t *testing.T, remainder string, args ...string) (*Flags, error) {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Register(fs, remainder)
	return &f, fs.Parse(args)
}

// TestEveryOption: every option of the registry is a flag, but those the
// commands take themselves, and --remainder only where a command has it.
func TestEveryOption(t *testing.T) {
	for _, remainder := range []string{"", "keep"} {
		var f Flags
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		f.Register(fs, remainder)
		for _, s := range loader.OptionSpecs() {
			want := !s.NoSharedFlag && (s.Name != "remainder" || remainder != "")
			fl := fs.Lookup(s.Name)
			if (fl != nil) != want {
				t.Errorf("remainder %q: flag --%s registered: %v, want %v", remainder, s.Name, fl != nil, want)
			}
			if fl != nil && (fl.Shorthand != s.Short || fl.Usage != s.Help) {
				t.Errorf("flag --%s: -%s %q, want the registry's -%s %q", s.Name, fl.Shorthand, fl.Usage, s.Short, s.Help)
			}
		}
	}
}

// TestDefaults: flags not given hold the loader's defaults, written out.
func TestDefaults(t *testing.T) {
	f, err := parse(t, "drop-last")
	if err != nil {
		t.Fatal(err)
	}
	want := loader.Options{Mode: loader.DefaultMode, Batch: loader.DefaultBatch, Epochs: loader.DefaultEpochs,
		Remainder: assign.DropLast, Stagger: loader.DefaultStagger, Window: loader.DefaultWindow,
		Prefetch: loader.DefaultPrefetch, MaxSpan: loader.DefaultMaxSpan, MaxGap: loader.DefaultMaxGap,
		IODepth: loader.DefaultIODepth, ChunkBytes: loader.DefaultChunkBytes, ChunkWindow: loader.DefaultChunkWindow}
	if got := f.Options(nil); got != want {
		t.Errorf("defaults %+v\nwant     %+v", got, want)
	}
	keep := assign.Keep
	if got := f.Options(&keep); got.Remainder != assign.Keep {
		t.Errorf("a fixed remainder: %v", got.Remainder)
	}
	if f.ModeName() != "default" {
		t.Errorf("mode name %q, want default", f.ModeName())
	}
}

// TestLikeTheOptionString: a flag reads its value as the option string's
// key does.
func TestLikeTheOptionString(t *testing.T) {
	values := map[string]string{"batch": "8", "epochs": "3", "mode": "lmm", "remainder": "drop", "shuffle": "chunk",
		"seed": "9", "chunk": "2MiB", "chunk-window": "4", "locality": "off", "cache": "0", "views": "off",
		"dataset": "x/y", "labels": "none", "direct": "1", "stagger": "2", "window": "8MiB", "prefetch": "3",
		"max-span": "4MiB", "max-gap": "4096", "io-depth": "16",
		"prep": "decode,center_crop:224,chw", "prep-threads": "2"}
	for _, s := range loader.OptionSpecs() {
		if s.NoSharedFlag {
			continue
		}
		v, ok := values[s.Name]
		if !ok {
			t.Errorf("option %s: no value in this test", s.Name)
			continue
		}
		f, err := parse(t, "pad", "--"+s.Name+"="+v)
		if err != nil {
			t.Errorf("--%s=%s: %v", s.Name, v, err)
			continue
		}
		want, err := loaderopts.Parse(s.Name + "=" + v)
		if err != nil {
			t.Fatal(err)
		}
		flagOpt := f.Options(nil)
		if got, w := s.String(&flagOpt), s.String(&want); got != w {
			t.Errorf("--%s=%s holds %q, %s=%s %q", s.Name, v, got, s.Name, v, w)
		}
	}
	f, err := parse(t, "", "-b", "5", "--direct", "--mode", "lmm+dio", "--shuffle", "global")
	if err != nil {
		t.Fatal(err)
	}
	if o := f.Options(nil); o.Batch != 5 || !o.Direct || o.Shuffle != sampler.Global || f.ModeName() != "lmm+dio" {
		t.Errorf("-b 5 --direct --mode lmm+dio --shuffle global: %+v, mode %q", o, f.ModeName())
	}
}

// TestBadValues: a bad value is refused while parsing, with the option
// string's message.
func TestBadValues(t *testing.T) {
	for arg, want := range map[string]string{
		"--batch=0":        "want a whole number of at least 1",
		"--epochs=x":       "want a whole number of at least 1",
		"--window=lots":    "is not a size",
		"--max-gap=0":      "want at least 1 byte",
		"--views=maybe":    "want auto, on or off",
		"--cache=lots":     "want a size (e.g. 8GiB), auto or off",
		"--direct=maybe":   "want true or false",
		"--remainder=some": "want pad, drop-last or keep",
	} {
		if _, err := parse(t, "pad", arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", arg, err, want)
		}
	}
}
