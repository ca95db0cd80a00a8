package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPositionals(t *testing.T) {
	for use, want := range map[string]string{
		"info [--json] PATH":                           "PATH",
		"digest [flags] PATH":                          "PATH",
		"topology [--json]":                            "",
		"mpibench [--size BYTES] [--iters N] [--json]": "",
		"gen --records N --size MEAN[,SD] [--datum] [--seed S] [--out] DIR": "DIR",
		"cp SRC DST [MORE...]": "SRC DST MORE",
	} {
		if got := strings.Join(positionals(use), " "); got != want {
			t.Errorf("positionals(%q) = %q, want %q", use, got, want)
		}
	}
}

func TestArgsProblem(t *testing.T) {
	for _, c := range []struct {
		want, args []string
		msg        string
	}{
		{[]string{"PATH"}, nil, "needs a PATH"},
		{[]string{"SRC", "DST"}, []string{"a"}, "needs a DST"},
		{nil, []string{"x"}, `takes no arguments (got "x")`},
		{[]string{"PATH"}, []string{"a", "b c"}, `takes PATH, got 2 arguments ("a" "b c")`},
	} {
		if got := argsProblem(c.want, c.args); got != c.msg {
			t.Errorf("argsProblem(%q, %q) = %q, want %q", c.want, c.args, got, c.msg)
		}
	}
}

func TestErrorLine(t *testing.T) {
	for _, c := range []struct {
		command string
		err     error
		want    string
	}{
		{"lmdbio info", Usagef("needs a PATH"), "lmdbio info: needs a PATH"},
		{"lmdbio info", errors.New("/d: lmdbfmt: not an LMDB file"), "lmdbio: /d: lmdbfmt: not an LMDB file"},
		{"lmdbio info", InputError(errors.New("/d: bad")), "lmdbio: /d: bad"},
		{"lmdbio run", errors.New("lmdbio run: rank 1 was killed"), "lmdbio run: rank 1 was killed"},
		{"lmdbio", errors.New("lmdbio: lmdbio: twice"), "lmdbio: twice"},
		{"", fmt.Errorf("reader: %w", fmt.Errorf("reader: %w", errors.New("short read"))), "lmdbio: reader: short read"},
		{"", errors.New("a: b: b: b: c: a"), "lmdbio: a: b: c"},
		{"", errors.New("/d: shm: create x: shm: need 2 MiB"), "lmdbio: /d: shm: create x: need 2 MiB"},
		{"", errors.New("/d: open /d: not found: open /d: x"), "lmdbio: /d: open /d: not found: open /d: x"},
		{"", errors.New("two\nlines"), "lmdbio: two lines"},
		{"lmdbio gen", UsageError(errors.New("gen: --records must be at least 1")), "lmdbio gen: --records must be at least 1"},
	} {
		if got := ErrorLine(c.command, c.err); got != c.want {
			t.Errorf("ErrorLine(%q, %q) = %q, want %q", c.command, c.err, got, c.want)
		}
	}
}
