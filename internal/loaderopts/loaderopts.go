// Package loaderopts reads and writes the loader's options as one string of
// key=value words, "batch=64 shuffle=global seed=7": the form lmdbio_open
// takes them in (include/lmdbio.h), and the form a learner sends them to
// the agent of its node in. The keys are the options of loader.OptionSpecs,
// the registry that also makes the lmdbio command's flags of the same names.
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
	"strings"
	"unicode"

	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// ErrSyntax marks an option string that is not key=value words, or names
// an unknown key or a key twice; a bad value of a known key is
// loader.ErrBadOption.
var ErrSyntax = failure.New(failure.Argument, "bad option string")

// Keys lists the option keys, in the order Format writes them.
func Keys() []string {
	specs := loader.OptionSpecs()
	names := make([]string, len(specs))
	for i, o := range specs {
		names[i] = o.Name
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
		o, known := loader.LookupOption(w.key)
		switch {
		case !known:
			return opt, fmt.Errorf("%w: option %q: unknown key (known: %s)", ErrSyntax, w.key, strings.Join(Keys(), ", "))
		case seen[w.key]:
			return opt, fmt.Errorf("%w: option %q given twice", ErrSyntax, w.key)
		}
		seen[w.key] = true
		if err := o.Set(&opt, w.value); err != nil {
			return opt, valueError(w.key, w.value, err)
		}
	}
	return opt, nil
}

// ParseResume reads a resume state given on its own (lmdbio_open_resume's
// state argument) into opt, as resume= in the option string would: the
// state document, or the path of a file that holds one. An empty state
// leaves opt as it is; a state for options that hold one already is
// ErrSyntax.
func ParseResume(opt *loader.Options, state string) error {
	if state == "" {
		return nil
	}
	if opt.Resume != nil {
		return fmt.Errorf("%w: option \"resume\" given twice: in the options and as the state", ErrSyntax)
	}
	spec, _ := loader.LookupOption("resume")
	if err := spec.Set(opt, state); err != nil {
		return valueError("resume", state, err)
	}
	return nil
}

// valueError says what is wrong with a key's value: a resume state that is
// missing, unreadable or does not fit is the input's fault, any other bad
// value loader.ErrBadOption.
func valueError(key, value string, err error) error {
	if errors.Is(err, loader.ErrResume) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("option %s: %w", key, err)
	}
	return fmt.Errorf("%w: option %s=%s: %v", loader.ErrBadOption, key, shorten(value), err)
}

// Format writes opt as an option string in the canonical form.
func Format(opt loader.Options) string {
	var b strings.Builder
	for _, o := range loader.OptionSpecs() {
		if v := o.Format(&opt); v != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(o.Name + "=" + v)
		}
	}
	return b.String()
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
