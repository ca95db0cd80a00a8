package loaderopts

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// state is a valid resume state document; its dataset name holds a space,
// as an HDF5 dataset's may.
const state = `{"version":1,"dataset":"hdf5 data","records":300,"shuffle":"global","seed":7,"chunk_bytes":67108864,` +
	`"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":3}`

func TestParse(t *testing.T) {
	opt, err := Parse("batch=8 epochs=2  mode=lmdb remainder=keep direct=true stagger=3\twindow=4MiB prefetch=1 max-span=1MiB " +
		"max-gap=4096 io-depth=8 shuffle=global seed=18446744073709551615 chunk=1MiB chunk-window=3 locality=off cache=off " +
		"dataset=train/images labels=none")
	if err != nil {
		t.Fatal(err)
	}
	lmdb, _ := loader.ParseMode("lmdb")
	want := loader.Options{Batch: 8, Epochs: 2, Mode: lmdb, Remainder: assign.Keep, Direct: true, Stagger: 3,
		Window: 4 << 20, Prefetch: 1, MaxSpan: 1 << 20, MaxGap: 4096, IODepth: 8, Shuffle: sampler.Global,
		Seed: 1<<64 - 1, ChunkBytes: 1 << 20, ChunkWindow: 3, Locality: loader.Off, Cache: loader.CacheOff,
		Dataset: "train/images", Labels: loader.NoLabels}
	if !reflect.DeepEqual(opt, want) {
		t.Errorf("got  %+v\nwant %+v", opt, want)
	}
	for _, s := range []string{"", "  \t", "cache=auto remainder=pad shuffle=none locality=on"} {
		if opt, err := Parse(s); err != nil || !reflect.DeepEqual(opt, loader.Options{}) {
			t.Errorf("%q: %+v, %v; want the zero value (the loader's defaults)", s, opt, err)
		}
	}
	if opt, err := Parse("cache=8GiB"); err != nil || opt.Cache != 8<<30 {
		t.Errorf("cache=8GiB: %d, %v", opt.Cache, err)
	}
}

func TestParseResume(t *testing.T) {
	want, err := loader.ParseState([]byte(state))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(file, []byte(state+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"batch=8 resume=" + state + " epochs=2",
		"resume=" + state,
		"batch=8 epochs=2 resume=" + file,
	} {
		opt, err := Parse(s)
		if err != nil {
			t.Errorf("%.40q: %v", s, err)
			continue
		}
		if !reflect.DeepEqual(opt.Resume, want) {
			t.Errorf("%.40q: resume %+v, want %+v", s, opt.Resume, want)
		}
	}
	_, err = Parse("resume=" + filepath.Join(t.TempDir(), "none.json"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "option resume: ") {
		t.Errorf("a missing resume file: %v", err)
	}
	_, err = Parse(`resume={"version":9}`)
	if !errors.Is(err, loader.ErrResume) {
		t.Errorf("a state of another version: %v, want ErrResume", err)
	}
}

func TestParseBad(t *testing.T) {
	for s, want := range map[string]string{
		"colour=blue":          `"colour": unknown key (known: batch, `,
		"batch=8 batch=9":      `"batch" given twice`,
		"batch":                `"batch": want key=value`,
		"=8":                   `"=8": want key=value`,
		"batch=0":              "batch=0: want a whole number of at least 1",
		"epochs=-1":            "epochs=-1: want a whole number",
		"batch=8x":             "batch=8x: want a whole number",
		"mode=fast":            "mode=fast: ",
		"remainder=some":       "remainder=some: ",
		"shuffle=random":       "shuffle=random: ",
		"seed=-1":              "seed=-1: want a whole number",
		"locality=maybe":       "locality=maybe: ",
		"cache=lots":           "cache=lots: want a size",
		"window=0":             "window=0: want at least 1 byte",
		"max-span=lots":        "max-span=lots: ",
		"direct=maybe":         "direct=maybe: want true or false",
		"dataset={}":           "dataset={}: want a name",
		"Batch=8":              `"Batch": unknown key`,
		"batch=8 io_depth=":    `"io_depth": unknown key`,
		`resume={"a":1`:        "resume: a value starting with '{' must be a JSON object",
		`resume={"a":1}x`:      "resume: a JSON value must be followed by a space",
		`resume={"version":1}`: "resume state: damaged",
	} {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", s, err, want)
		}
		if err != nil && !errors.Is(err, ErrSyntax) && !errors.Is(err, loader.ErrBadOption) && !errors.Is(err, loader.ErrResume) {
			t.Errorf("%q: error %v is neither ErrSyntax, ErrBadOption nor ErrResume", s, err)
		}
	}
}

// TestFormat: the canonical form leaves defaults out, puts keys in order
// and reads back as the same options.
func TestFormat(t *testing.T) {
	for s, want := range map[string]string{
		"":                                   "",
		"epochs=2 batch=8":                   "batch=8 epochs=2",
		"cache=0 window=64KiB remainder=pad": "cache=off window=65536",
		"mode=default shuffle=none":          "mode=lmm+dio+prov+coal+stag",
		"resume=" + state + " batch=4":       "batch=4 resume=" + compact(t, state),
	} {
		opt, err := Parse(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := Format(opt); got != want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", s, got, want)
		}
		again, err := Parse(Format(opt))
		if err != nil || !reflect.DeepEqual(again, opt) {
			t.Errorf("%q: reads back as %+v, %v", s, again, err)
		}
	}
}

func compact(t *testing.T, doc string) string {
	st, err := loader.ParseState([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKeysDocumented: every key is in include/lmdbio.h's list.
func TestKeysDocumented(t *testing.T) {
	header, err := os.ReadFile("../../include/lmdbio.h")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		if !strings.Contains(string(header), " *   "+k+"=") {
			t.Errorf("option %s is not documented at lmdbio_open in include/lmdbio.h", k)
		}
	}
}

// FuzzParse: no string makes Parse panic, and whatever it accepts formats
// into a string that reads back as the same options.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "batch=8 epochs=2", "mode=lmdb remainder=keep", "cache=8GiB seed=3",
		"resume=" + state, `resume={"a":"} {"}`, "dataset=x=y labels=none", "batch=8\tbatch", "resume={"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		opt, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(Format(opt))
		if err != nil || !reflect.DeepEqual(again, opt) {
			t.Fatalf("%q: formatted %q reads back as %+v, %v; want %+v", s, Format(opt), again, err, opt)
		}
	})
}

// TestParseViews: views is settable from an option string (C, Python, an
// agent's learners) as from the command line.
func TestParseViews(t *testing.T) {
	for s, want := range map[string]loader.Views{"views=on": loader.ViewsOn, "views=off": loader.ViewsOff, "views=auto": loader.ViewsAuto} {
		opt, err := Parse(s)
		if err != nil || opt.Views != want {
			t.Errorf("%q: views %v, %v; want %v", s, opt.Views, err, want)
		}
	}
	opt, _ := Parse("views=off batch=3")
	if got := Format(opt); got != "batch=3 views=off" {
		t.Errorf("Format: %q", got)
	}
	if _, err := Parse("views=sometimes"); !errors.Is(err, loader.ErrBadOption) || !strings.Contains(err.Error(), "views=sometimes: ") {
		t.Errorf("views=sometimes: %v", err)
	}
}

// TestParseResume: a state given on its own (lmdbio_open_resume) reads as
// resume= does, and not besides resume=.
func TestParseResumeArgument(t *testing.T) {
	want, err := loader.ParseState([]byte(state))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(file, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{state, "  " + state, file} {
		opt, _ := Parse("batch=4")
		if err := ParseResume(&opt, st); err != nil || !reflect.DeepEqual(opt.Resume, want) || opt.Batch != 4 {
			t.Errorf("%.20q: %+v, %v", st, opt, err)
		}
	}
	opt, _ := Parse("batch=4")
	if err := ParseResume(&opt, ""); err != nil || opt.Resume != nil {
		t.Errorf("no state: %+v, %v", opt, err)
	}
	opt, _ = Parse("resume=" + state)
	if err := ParseResume(&opt, state); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a state twice: %v", err)
	}
	opt = loader.Options{}
	err = ParseResume(&opt, "/nonexistent/state.json")
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "option resume: ") {
		t.Errorf("a missing state file: %v", err)
	}
	if err := ParseResume(&opt, `{"version":1}`); !errors.Is(err, loader.ErrResume) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged state: %v", err)
	}
}
