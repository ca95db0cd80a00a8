//go:build cgo

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/units"
)

// loaderOption is one key of lmdbio_open's option string. Its name is the
// lmdbio command's flag for the same setting.
type loaderOption struct {
	name string
	set  func(o *loader.Options, value string) error
}

// loaderOptions maps option keys onto loader.Options: a new loader option
// is one line here (and one in include/lmdbio.h's list).
var loaderOptions = []loaderOption{
	{"batch", count(func(o *loader.Options) *int { return &o.Batch })},
	{"epochs", count(func(o *loader.Options) *int { return &o.Epochs })},
	{"mode", func(o *loader.Options, v string) (err error) { o.Mode, err = loader.ParseMode(v); return err }},
	{"remainder", func(o *loader.Options, v string) (err error) { o.Remainder, err = assign.ParseRemainder(v); return err }},
	{"direct", flag(func(o *loader.Options) *bool { return &o.Direct })},
	{"stagger", count(func(o *loader.Options) *int { return &o.Stagger })},
	{"window", size(func(o *loader.Options) *int64 { return &o.Window })},
	{"prefetch", count(func(o *loader.Options) *int { return &o.Prefetch })},
	{"max-span", size(func(o *loader.Options) *int64 { return &o.MaxSpan })},
	{"max-gap", size(func(o *loader.Options) *int64 { return &o.MaxGap })},
	{"io-depth", count(func(o *loader.Options) *int { return &o.IODepth })},
}

// parseOptions reads "key=value key=value ..." into loader options. Keys
// not given keep the loader's defaults.
func parseOptions(s string) (loader.Options, error) {
	var opt loader.Options
	seen := map[string]bool{}
	for _, word := range strings.Fields(s) {
		key, value, ok := strings.Cut(word, "=")
		if !ok || key == "" {
			return opt, fmt.Errorf("option %q: want key=value", word)
		}
		o := findOption(key)
		if o == nil {
			return opt, fmt.Errorf("option %q: unknown key (known: %s)", key, optionNames())
		}
		if seen[key] {
			return opt, fmt.Errorf("option %q given twice", key)
		}
		seen[key] = true
		if err := o.set(&opt, value); err != nil {
			return opt, fmt.Errorf("option %s=%s: %v", key, value, err)
		}
	}
	return opt, nil
}

func findOption(key string) *loaderOption {
	for i := range loaderOptions {
		if loaderOptions[i].name == key {
			return &loaderOptions[i]
		}
	}
	return nil
}

func optionNames() string {
	names := make([]string, len(loaderOptions))
	for i, o := range loaderOptions {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}

// count sets a whole number of at least 1 (the loader reads 0 as "the
// default", which a caller who wrote 0 did not mean).
func count(field func(*loader.Options) *int) func(*loader.Options, string) error {
	return func(o *loader.Options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a whole number of at least 1")
		}
		*field(o) = n
		return nil
	}
}

// size sets a byte count of at least 1, with an optional unit (64KiB, 4MiB).
func size(field func(*loader.Options) *int64) func(*loader.Options, string) error {
	return func(o *loader.Options, v string) error {
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
}

// flag sets a boolean: true, false, 1, 0 (strconv.ParseBool's words).
func flag(field func(*loader.Options) *bool) func(*loader.Options, string) error {
	return func(o *loader.Options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*field(o) = b
		return nil
	}
}
