// Package loaderopts reads and writes the loader's options as one string of
// key=value words, "batch=64 shuffle=global seed=7": the form lmdbio_open
// takes them in (include/lmdbio.h), and the form a learner sends them to
// the agent of its node in. Every key is the lmdbio command's flag for the
// same setting.
//
// A value is one word, except a value that starts with '{': it is a JSON
// object and runs to its closing brace, spaces included. resume takes such
// an object (a loader.State document, as lmdbio_state returns it) or, when
// its value does not start with '{', the path of a file holding one.
//
// Format writes options back in a canonical form (the keys in the order of
// Keys, values as Parse reads them, defaults left out, a resume state
// inline): Parse(Format(o)) gives o again, and two option strings that say
// the same thing format alike.
package loaderopts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/lmdbio/lmdbio/internal/units"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// ErrSyntax marks an option string that is not key=value words, or names
// an unknown key or a key twice; a bad value of a known key is
// loader.ErrBadOption.
var ErrSyntax = failure.New(failure.Argument, "bad option string")

// option is one key. set reads a value into the options; get writes it
// back, "" when the options hold the loader's default.
type option struct {
	name string
	set  func(o *loader.Options, value string) error
	get  func(o *loader.Options) string
}

// options maps keys onto loader.Options: a new loader option is one line
// here (and one in include/lmdbio.h's list).
var options = []option{
	count("batch", func(o *loader.Options) *int { return &o.Batch }),
	count("epochs", func(o *loader.Options) *int { return &o.Epochs }),
	{"mode", setMode, getMode},
	{"remainder", setRemainder, getRemainder},
	{"shuffle", setShuffle, getShuffle},
	{"seed", setSeed, getSeed},
	size("chunk", func(o *loader.Options) *int64 { return &o.ChunkBytes }),
	count("chunk-window", func(o *loader.Options) *int { return &o.ChunkWindow }),
	{"locality", setLocality, getLocality},
	{"cache", setCache, getCache},
	word("dataset", func(o *loader.Options) *string { return &o.Dataset }),
	word("labels", func(o *loader.Options) *string { return &o.Labels }),
	{"direct", setDirect, getDirect},
	count("stagger", func(o *loader.Options) *int { return &o.Stagger }),
	size("window", func(o *loader.Options) *int64 { return &o.Window }),
	count("prefetch", func(o *loader.Options) *int { return &o.Prefetch }),
	size("max-span", func(o *loader.Options) *int64 { return &o.MaxSpan }),
	size("max-gap", func(o *loader.Options) *int64 { return &o.MaxGap }),
	count("io-depth", func(o *loader.Options) *int { return &o.IODepth }),
	{"resume", setResume, getResume},
}

// Keys lists the option keys, in the order Format writes them.
func Keys() []string {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return names
}

// Parse reads an option string into loader options. Keys not given keep
// the loader's defaults (the zero value). Its errors name the key.
func Parse(s string) (loader.Options, error) {
	var opt loader.Options
	words, err := split(s)
	if err != nil {
		return opt, err
	}
	seen := map[string]bool{}
	for _, w := range words {
		o := find(w.key)
		switch {
		case o == nil:
			return opt, fmt.Errorf("%w: option %q: unknown key (known: %s)", ErrSyntax, w.key, strings.Join(Keys(), ", "))
		case seen[w.key]:
			return opt, fmt.Errorf("%w: option %q given twice", ErrSyntax, w.key)
		}
		seen[w.key] = true
		if err := o.set(&opt, w.value); err != nil {
			if errors.Is(err, loader.ErrResume) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
				return opt, fmt.Errorf("option resume: %w", err)
			}
			return opt, fmt.Errorf("%w: option %s=%s: %v", loader.ErrBadOption, w.key, shorten(w.value), err)
		}
	}
	return opt, nil
}

// Format writes opt as an option string in the canonical form.
func Format(opt loader.Options) string {
	var b strings.Builder
	for _, o := range options {
		if v := o.get(&opt); v != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(o.name + "=" + v)
		}
	}
	return b.String()
}

func find(key string) *option {
	for i := range options {
		if options[i].name == key {
			return &options[i]
		}
	}
	return nil
}

// keyValue is one word of an option string.
type keyValue struct{ key, value string }

// split cuts s into key=value words. A value starting with '{' is a JSON
// object and may hold spaces.
func split(s string) ([]keyValue, error) {
	var out []keyValue
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return out, nil
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		key, rest, ok := strings.Cut(s[:end], "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("%w: option %q: want key=value", ErrSyntax, shorten(s[:end]))
		}
		if strings.HasPrefix(rest, "{") {
			n, err := objectLength(s[len(key)+1:])
			if err != nil {
				return nil, fmt.Errorf("%w: option %s: %v", ErrSyntax, key, err)
			}
			end = len(key) + 1 + n
		}
		out = append(out, keyValue{key, s[len(key)+1 : end]})
		s = s[end:]
		if s != "" && !unicode.IsSpace(rune(s[0])) {
			return nil, fmt.Errorf("%w: option %s: a JSON value must be followed by a space", ErrSyntax, key)
		}
	}
}

// objectLength is the length of the JSON object s starts with.
func objectLength(s string) (int, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return 0, fmt.Errorf("a value starting with '{' must be a JSON object: %v", err)
	}
	return int(dec.InputOffset()), nil
}

// shorten keeps error messages one readable line.
func shorten(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// count is a whole number of at least 1 (the loader reads 0 as "the
// default", which a caller who wrote 0 did not mean).
func count(name string, field func(*loader.Options) *int) option {
	set := func(o *loader.Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number of at least 1")
		}
		*field(o) = n
		return nil
	}
	get := func(o *loader.Options) string {
		if n := *field(o); n != 0 {
			return strconv.Itoa(n)
		}
		return ""
	}
	return option{name, set, get}
}

// size is a byte count of at least 1, with an optional unit (64KiB, 4MiB).
func size(name string, field func(*loader.Options) *int64) option {
	set := func(o *loader.Options, v string) error {
		n, err := units.ParseSize(v)
		if err != nil {
			return err
		}
		if n < 1 {
			return fmt.Errorf("want at least 1 byte")
		}
		*field(o) = n
		return nil
	}
	get := func(o *loader.Options) string {
		if n := *field(o); n != 0 {
			return strconv.FormatInt(n, 10)
		}
		return ""
	}
	return option{name, set, get}
}

// word is a name (an HDF5 dataset's path).
func word(name string, field func(*loader.Options) *string) option {
	set := func(o *loader.Options, v string) error {
		if v == "" || strings.HasPrefix(v, "{") {
			return fmt.Errorf("want a name")
		}
		*field(o) = v
		return nil
	}
	return option{name, set, func(o *loader.Options) string { return *field(o) }}
}

func setMode(o *loader.Options, v string) (err error) { o.Mode, err = loader.ParseMode(v); return err }

func getMode(o *loader.Options) string {
	if o.Mode == (loader.Mode{}) {
		return ""
	}
	return o.Mode.String()
}

func setRemainder(o *loader.Options, v string) (err error) {
	o.Remainder, err = assign.ParseRemainder(v)
	return err
}

func getRemainder(o *loader.Options) string {
	if o.Remainder == assign.Pad {
		return ""
	}
	return o.Remainder.String()
}

func setShuffle(o *loader.Options, v string) (err error) {
	o.Shuffle, err = sampler.ParseShuffle(v)
	return err
}

func getShuffle(o *loader.Options) string {
	if o.Shuffle == sampler.None {
		return ""
	}
	return o.Shuffle.String()
}

func setSeed(o *loader.Options, v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to 2^64-1")
	}
	o.Seed = n
	return nil
}

func getSeed(o *loader.Options) string {
	if o.Seed == 0 {
		return ""
	}
	return strconv.FormatUint(o.Seed, 10)
}

func setLocality(o *loader.Options, v string) (err error) {
	o.Locality, err = loader.ParseSwitch(v)
	return err
}

func getLocality(o *loader.Options) string {
	if o.Locality == loader.On {
		return ""
	}
	return o.Locality.String()
}

// setCache reads auto (pick what fits), off or 0 (none), or a size.
func setCache(o *loader.Options, v string) error {
	switch v {
	case "auto":
		o.Cache = 0
		return nil
	case "off", "0":
		o.Cache = loader.CacheOff
		return nil
	}
	n, err := units.ParseSize(v)
	if err != nil {
		return fmt.Errorf("want a size (e.g. 8GiB), auto or off")
	}
	o.Cache = n
	return nil
}

func getCache(o *loader.Options) string {
	switch {
	case o.Cache == loader.CacheOff:
		return "off"
	case o.Cache > 0:
		return strconv.FormatInt(o.Cache, 10)
	}
	return ""
}

// setDirect reads a boolean: true, false, 1, 0 (strconv.ParseBool's words).
func setDirect(o *loader.Options, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	o.Direct = b
	return nil
}

func getDirect(o *loader.Options) string {
	if o.Direct {
		return "true"
	}
	return ""
}

// setResume reads a State document, inline or from a file.
func setResume(o *loader.Options, v string) error {
	read := loader.ReadStateFile
	if strings.HasPrefix(v, "{") {
		read = func(doc string) (*loader.State, error) { return loader.ParseState([]byte(doc)) }
	}
	st, err := read(v)
	if err != nil {
		return err
	}
	o.Resume = st
	return nil
}

func getResume(o *loader.Options) string {
	if o.Resume == nil {
		return ""
	}
	b, err := json.Marshal(o.Resume)
	if err != nil {
		return "" // a State always marshals
	}
	return string(b)
}
