package loader

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// sampleState is a valid resume state document.
const sampleState = `{"version":3,"dataset":"d","records":300,"shuffle":"global","seed":7,"chunk_bytes":67108864,` +
	`"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":3}`

// samples holds a value other than the default for every option: a new
// option fails TestRegistryFields until it has one here.
var samples = map[string]string{
	"batch": "8", "epochs": "3", "mode": "lmm", "remainder": "keep", "shuffle": "global", "seed": "18446744073709551615",
	"chunk": "1MiB", "chunk-window": "3", "locality": "off", "cache": "8GiB", "views": "on", "dataset": "train/x",
	"labels": "none", "direct": "true", "stagger": "2", "window": "4MiB", "prefetch": "5", "max-span": "1MiB",
	"max-gap": "4096", "io-depth": "16", "resume": sampleState,
	"prep": "decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16", "prep-threads": "3",
}

// goOnly are the Options fields no interface but Go sets.
var goOnly = map[string]bool{"Topology": true, "Index": true}

// TestRegistryFields: every Options field but the Go-only ones has exactly
// one option, and an option's Set writes its own field and no other.
func TestRegistryFields(t *testing.T) {
	typ := reflect.TypeFor[Options]()
	owner := map[string]string{}
	for _, s := range registry {
		if prev, ok := owner[s.Field]; ok {
			t.Errorf("options %s and %s both set Options.%s", prev, s.Name, s.Field)
		}
		owner[s.Field] = s.Name
		if _, ok := typ.FieldByName(s.Field); !ok {
			t.Errorf("option %s: Options has no field %s", s.Name, s.Field)
			continue
		}
		sample, ok := samples[s.Name]
		if !ok {
			t.Errorf("option %s has no sample value in this test", s.Name)
			continue
		}
		var o Options
		if err := s.Set(&o, sample); err != nil {
			t.Errorf("option %s=%s: %v", s.Name, sample, err)
			continue
		}
		v := reflect.ValueOf(o)
		for i := range typ.NumField() {
			changed := !v.Field(i).IsZero()
			if mine := typ.Field(i).Name == s.Field; changed != mine {
				t.Errorf("option %s=%s: Options.%s changed: %v", s.Name, sample, typ.Field(i).Name, changed)
			}
		}
	}
	for i := range typ.NumField() {
		if f := typ.Field(i).Name; owner[f] == "" && !goOnly[f] {
			t.Errorf("Options.%s has no option in the registry: C, Python, agents and the command line cannot set it", f)
		}
	}
}

// TestRegistryRoundTrip: Format writes what Set reads back, and "" for the
// zero value.
func TestRegistryRoundTrip(t *testing.T) {
	for _, s := range registry {
		var zero Options
		if got := s.Format(&zero); got != "" {
			t.Errorf("option %s: the zero value formats as %q, want \"\"", s.Name, got)
		}
		var o Options
		if err := s.Set(&o, samples[s.Name]); err != nil {
			t.Fatalf("option %s: %v", s.Name, err)
		}
		var again Options
		if err := s.Set(&again, s.Format(&o)); err != nil || !reflect.DeepEqual(again, o) {
			t.Errorf("option %s: %q reads back as %+v, %v; want %+v", s.Name, s.Format(&o), again, err, o)
		}
	}
}

// TestRegistryDefaults: setDefaults gives the documented defaults, the
// registry's Default of each option reads as what setDefaults sets, and
// the defaults pass check.
func TestRegistryDefaults(t *testing.T) {
	o := Options{Topology: &topology.Topology{}}
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	want := Options{Topology: o.Topology, Mode: DefaultMode, Batch: DefaultBatch, Epochs: DefaultEpochs,
		Stagger: DefaultStagger, Window: DefaultWindow, Prefetch: DefaultPrefetch, MaxSpan: DefaultMaxSpan,
		MaxGap: DefaultMaxGap, IODepth: DefaultIODepth, ChunkBytes: DefaultChunkBytes, ChunkWindow: DefaultChunkWindow}
	if o != want {
		t.Errorf("defaults %+v\nwant     %+v", o, want)
	}
	for _, s := range registry {
		if s.Default == "" {
			continue
		}
		var one Options
		if err := s.Set(&one, s.Default); err != nil {
			t.Errorf("option %s: default %q: %v", s.Name, s.Default, err)
		}
		if got := s.String(&one); got != s.String(&o) {
			t.Errorf("option %s: default %q sets %q, setDefaults %q", s.Name, s.Default, got, s.String(&o))
		}
	}
}

// TestRegistryCheck: numbers out of range are ErrBadOption naming the flag.
func TestRegistryCheck(t *testing.T) {
	for _, c := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Batch = 1 << 40 }, "--batch 1099511627776: want 1 to 2147483647"},
		{func(o *Options) { o.Epochs = -2 }, "--epochs -2: want 1 to 16777216"},
		{func(o *Options) { o.Prefetch = 65 }, "--prefetch 65: want 1 to 64"},
		{func(o *Options) { o.IODepth = 1025 }, "--io-depth 1025: want 1 to 1024"},
		{func(o *Options) { o.MaxGap = -1 }, "--max-gap -1: want 1 to 1099511627776"},
		{func(o *Options) { o.MaxSpan = 1 << 10 }, "--max-span 1024: want 4096 to 1099511627776"},
		{func(o *Options) { o.MaxSpan = minMaxSpan - 1 }, "--max-span 4095: want 4096 to"},
		{func(o *Options) { o.Cache = -2 }, "--cache -2: want -1 to 1125899906842624"},
		{func(o *Options) { o.Shuffle = sampler.File + 1 }, "shuffle 5"},
		{func(o *Options) { o.Mode = stacked(0); o.Shuffle = sampler.File }, "--mode lmdb reads by cursor"},
		{func(o *Options) { o.Remainder = assign.Keep + 1 }, "remainder 3"},
		{func(o *Options) { o.Mode = stacked(0); o.Shuffle = sampler.Global }, "--mode lmdb reads by cursor"},
	} {
		o := Options{Topology: &topology.Topology{}}
		c.change(&o)
		err := o.setDefaults()
		if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want ErrBadOption with %q", err, c.want)
		}
	}
}

// TestRegistryMaxSpanFloor: one page is the smallest max-span, and is
// accepted.
func TestRegistryMaxSpanFloor(t *testing.T) {
	o := Options{Topology: &topology.Topology{}, MaxSpan: minMaxSpan}
	if err := o.setDefaults(); err != nil {
		t.Errorf("max-span of one page: %v", err)
	}
}

// TestSettings: the ranks compare every option but those only Go sets; a
// resume state by its fingerprint.
func TestSettings(t *testing.T) {
	o := Options{Topology: &topology.Topology{}}
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range o.settings() {
		got[kv[0]] = kv[1]
	}
	for _, s := range registry {
		if _, ok := got[s.Name]; !ok {
			t.Errorf("ranks do not agree on %s", s.Name)
		}
	}
	if got["resume"] != "none" || got["cache"] != "auto" || got["mode"] != DefaultMode.String() || got["batch"] != "64" {
		t.Errorf("settings %v", got)
	}
	st, err := ParseState([]byte(sampleState))
	if err != nil {
		t.Fatal(err)
	}
	o.Resume = st
	for _, kv := range o.settings() {
		if kv[0] == "resume" && kv[1] != st.fingerprint() {
			t.Errorf("resume agreed as %q, want its fingerprint", kv[1])
		}
	}
}
