package loader

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/units"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// OptionSpec describes one loader option as every interface spells it: the
// key of lmdbio_open's option string (and of the agent's learners), the
// lmdbio command's flag, the Python keyword (with "_" for "-"). Options'
// defaults, its range checks, the settings ranks agree on at Open, the
// option-string parser, the command's flags and docs/options.md are all
// made from the one table OptionSpecs returns, so a new option is one
// entry there.
type OptionSpec struct {
	Name    string // key and flag: "max-span"
	Short   string // one-letter flag, or ""
	Field   string // the Options field it sets: "MaxSpan"
	Value   string // what the value looks like in docs: "N", "SIZE", "on|off"
	Type    string // the flag's type in help: "int", "bytes", "uint", "bool", "string"
	Default string // the default as a user writes it; "" for none, or where it depends on the file
	Help    string // one sentence, for every interface

	// Min and Max bound a number after defaults (check); Max 0 means the
	// option is not a number.
	Min, Max int64
	// MustAgree says every rank of a job must hold the same value; Open
	// refuses ranks that differ (agree.go).
	MustAgree bool
	// NoSharedFlag leaves the option out of the flags every loader command
	// shares: a command that can continue a run defines it itself (lmdbio
	// digest --resume FILE).
	NoSharedFlag bool

	set   func(o *Options, value string) error
	show  func(o *Options) string // the value as a user writes it ("" only for an empty name)
	zero  func(o *Options) bool   // the field holds its zero value, which Options reads as the default
	num   func(o *Options) int64  // a number's value, for the range check
	agree func(o *Options) string // what ranks compare, when not show (resume: a fingerprint)
}

// Set reads value into o's field, as the option string and the flag do. A
// count or a size of 0 is refused: Options reads 0 as the default, which
// a caller who wrote 0 did not mean.
func (s OptionSpec) Set(o *Options, value string) error { return s.set(o, value) }

// Format writes o's value back as Set reads it; "" when o holds the zero
// value (the default).
func (s OptionSpec) Format(o *Options) string {
	if s.zero(o) {
		return ""
	}
	return s.show(o)
}

// String writes o's value as a user writes it, the default included.
func (s OptionSpec) String(o *Options) string { return s.show(o) }

// OptionSpecs lists every loader option, in the order option strings are
// written in.
func OptionSpecs() []OptionSpec { return append([]OptionSpec(nil), registry...) }

// LookupOption returns the option named name.
func LookupOption(name string) (OptionSpec, bool) {
	for _, s := range registry {
		if s.Name == name {
			return s, true
		}
	}
	return OptionSpec{}, false
}

// registry is the table. Its order is the option string's canonical order
// (internal/loaderopts.Format) and the order of every listing.
var registry = []OptionSpec{
	count("batch", "Batch", func(o *Options) *int { return &o.Batch }, DefaultBatch, math.MaxInt32,
		"records per learner batch").short("b"),
	count("epochs", "Epochs", func(o *Options) *int { return &o.Epochs }, DefaultEpochs, maxEpochs, "epochs to deliver"),
	choice("mode", "Mode", "MODE", "default", "reading mode: "+strings.Join(modeNames, ", ")+", or default (all optimisations)",
		func(o *Options, v string) (err error) { o.Mode, err = ParseMode(v); return err },
		func(o *Options) string { return o.Mode.String() },
		func(o *Options) bool { return o.Mode == Mode{} }),
	choice("remainder", "Remainder", "pad|drop-last|keep", "pad",
		"records that do not fill a round: pad (repeat records to fill it), drop-last, or keep (every record exactly once; short last batches)",
		func(o *Options, v string) (err error) { o.Remainder, err = assign.ParseRemainder(v); return err },
		func(o *Options) string { return o.Remainder.String() },
		func(o *Options) bool { return o.Remainder == assign.Pad }),
	choice("shuffle", "Shuffle", "none|file|chunk|global|local", "none",
		"order of every epoch: none (key order, as LMDB's cursor walks it), file (the file's order), chunk (shuffled chunks of the file), global (a random permutation) or local (each node shuffles its own share)",
		func(o *Options, v string) (err error) { o.Shuffle, err = sampler.ParseShuffle(v); return err },
		func(o *Options) string { return o.Shuffle.String() },
		func(o *Options) bool { return o.Shuffle == sampler.None }),
	seed(),
	size("chunk", "ChunkBytes", func(o *Options) *int64 { return &o.ChunkBytes }, DefaultChunkBytes, "shuffle chunk: about the bytes of values per chunk (their number is rounded to whole windows)"),
	count("chunk-window", "ChunkWindow", func(o *Options) *int { return &o.ChunkWindow }, DefaultChunkWindow, math.MaxInt32, "shuffle chunk: chunks whose records are shuffled together"),
	choice("locality", "Locality", "on|off", "on",
		"locality-aware assignment for chunk and global: learners first take the records their node holds (on, off)",
		func(o *Options, v string) (err error) { o.Locality, err = ParseSwitch(v); return err },
		func(o *Options) string { return o.Locality.String() },
		func(o *Options) bool { return o.Locality == On }),
	cache(),
	choice("views", "Views", "auto|on|off", "auto",
		"learners read values through a read-only mapping of the data file where that is safe: on, off, or auto (for a single epoch or without a cache)",
		func(o *Options, v string) (err error) { o.Views, err = ParseViews(v); return err },
		func(o *Options) string { return o.Views.String() },
		func(o *Options) bool { return o.Views == ViewsAuto }),
	name("dataset", "Dataset", "HDF5: the dataset whose rows are the records (default data)",
		func(o *Options) *string { return &o.Dataset }),
	name("labels", "Labels", "HDF5: the labels dataset delivered with the rows (default label, if the file has one; none for no labels)",
		func(o *Options) *string { return &o.Labels }),
	direct(),
	count("stagger", "Stagger", func(o *Options) *int { return &o.Stagger }, DefaultStagger, math.MaxInt32, "node readers on storage at once (with the stag optimisation)"),
	size("window", "Window", func(o *Options) *int64 { return &o.Window }, DefaultWindow, "bytes a node reads per window (coalescing)"),
	count("prefetch", "Prefetch", func(o *Options) *int { return &o.Prefetch }, DefaultPrefetch, maxPrefetch, "windows read ahead of the learners"),
	size("max-span", "MaxSpan", func(o *Options) *int64 { return &o.MaxSpan }, DefaultMaxSpan, "largest single read").atLeast(minMaxSpan),
	size("max-gap", "MaxGap", func(o *Options) *int64 { return &o.MaxGap }, DefaultMaxGap, "unneeded bytes read through to merge two reads"),
	count("io-depth", "IODepth", func(o *Options) *int { return &o.IODepth }, DefaultIODepth, maxIODepth, "reads in flight per node reader"),
	prepOption(),
	prepThreadsOption(),
	resume(),
}

func (s OptionSpec) short(letter string) OptionSpec { s.Short = letter; return s }

// minMaxSpan is the smallest max-span: one page, the unit of LMDB's
// overflow values and of the alignment direct reads need. Smaller reads
// only split what storage serves in one.
const minMaxSpan = 4 << 10

// atLeast raises the smallest value of a number's range above its kind's.
func (s OptionSpec) atLeast(min int64) OptionSpec { s.Min = min; return s }

// count is a whole number of at least 1.
func count(name, field string, ptr func(*Options) *int, def int, max int64, help string) OptionSpec {
	return OptionSpec{Name: name, Field: field, Value: "N", Type: "int", Default: strconv.Itoa(def), Help: help,
		Min: 1, Max: max, MustAgree: true,
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("want a whole number of at least 1")
			}
			*ptr(o) = n
			return nil
		},
		show: func(o *Options) string { return strconv.Itoa(*ptr(o)) },
		zero: func(o *Options) bool { return *ptr(o) == 0 },
		num:  func(o *Options) int64 { return int64(*ptr(o)) },
	}
}

// size is a byte count of at least 1, with an optional unit (64KiB, 4MiB).
func size(name, field string, ptr func(*Options) *int64, def int64, help string) OptionSpec {
	return OptionSpec{Name: name, Field: field, Value: "SIZE", Type: "bytes", Default: units.FormatSize(def), Help: help,
		Min: 1, Max: maxBytes, MustAgree: true,
		set: func(o *Options, v string) error {
			n, err := units.ParseSize(v)
			if err != nil {
				return err
			}
			if n < 1 {
				return fmt.Errorf("want at least 1 byte")
			}
			*ptr(o) = n
			return nil
		},
		show: func(o *Options) string { return strconv.FormatInt(*ptr(o), 10) },
		zero: func(o *Options) bool { return *ptr(o) == 0 },
		num:  func(o *Options) int64 { return *ptr(o) },
	}
}

// choice is one of a few words.
func choice(name, field, value, def, help string, set func(*Options, string) error, show func(*Options) string,
	zero func(*Options) bool) OptionSpec {
	return OptionSpec{Name: name, Field: field, Value: value, Type: "string", Default: def, Help: help, MustAgree: true,
		set: set, show: show, zero: zero}
}

// name is a name in the data file (an HDF5 dataset's path); its default
// depends on the file.
func name(name, field, help string, ptr func(*Options) *string) OptionSpec {
	return OptionSpec{Name: name, Field: field, Value: "NAME", Type: "string", Help: help, MustAgree: true,
		set: func(o *Options, v string) error {
			if v == "" || strings.HasPrefix(v, "{") {
				return fmt.Errorf("want a name")
			}
			*ptr(o) = v
			return nil
		},
		show: func(o *Options) string { return *ptr(o) },
		zero: func(o *Options) bool { return *ptr(o) == "" },
	}
}
