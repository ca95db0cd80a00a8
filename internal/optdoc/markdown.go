package optdoc

import (
	"fmt"
	"strings"

	"github.com/lmdbio/lmdbio/internal/units"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// Markdown is docs/options.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString(`# Loader options

<!-- Made by go generate ./internal/optdoc from the registry in pkg/loader/registry.go; edit those, not this file. -->

Every option of the loader is set the same way from every interface, under one name:

| interface | how | example |
| --- | --- | --- |
| Go | a field of ` + "`loader.Options`" + ` (its zero value is the default) | ` + "`loader.Options{Batch: 32, Shuffle: sampler.Global}`" + ` |
| command line | a flag of ` + "`lmdbio digest`, `bench` and `stall`" + ` | ` + "`--batch 32 --shuffle global`" + ` |
| C | a key=value word of ` + "`lmdbio_open`" + `'s options | ` + "`lmdbio_open(path, \"batch=32 shuffle=global\", &ld)`" + ` |
| Python | a keyword of ` + "`lmdbio.Loader`" + `, with ` + "`_`" + ` for ` + "`-`" + ` | ` + "`lmdbio.Loader(path, batch=32, shuffle=\"global\")`" + ` |
| learners of ` + "`lmdbio run --agent`" + ` | the C or Python form; the learner sends the options to its node's agent | |

A count is a whole number of at least 1 and a SIZE a byte count of at least 1 with an optional unit
(4096, 64KiB, 4MiB, 1GB): 0, which Go reads as the default, is refused where it is written out.
Every rank of a job must be given the same options: Open refuses ranks that differ, naming the option.

The resume state has a form of its own in C and Python: ` + "`lmdbio_open_resume(path, options, state, &ld)`" + `
takes it as an argument (a state document, or the path of a file that holds one), and Python's
` + "`resume=`" + ` keyword goes there. ` + "`lmdbio_open`" + ` still reads ` + "`resume=STATE`" + ` in the option string, and
the command line has ` + "`lmdbio digest --resume FILE`" + `.

| option | Go field | value | default | range | what it does |
| --- | --- | --- | --- | --- | --- |
`)
	for _, s := range loader.OptionSpecs() {
		name := "`" + s.Name + "`"
		if s.Short != "" {
			name += " (`-" + s.Short + "`)"
		}
		if k := keyword(s.Name); k != s.Name {
			name += ", Python `" + k + "`"
		}
		if s.NoSharedFlag {
			name += " (no shared flag)"
		}
		def := s.Default
		if def == "" {
			def = "—" // none, or what the help says
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s |\n", name, s.Field, cell(code(s.Value)), def, rangeOf(s), cell(s.Help))
	}
	return b.String()
}

func code(s string) string { return "`" + s + "`" }

// cell keeps a table cell one cell: a "|" would end it.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// rangeOf is what the range check accepts once defaults are applied.
func rangeOf(s loader.OptionSpec) string {
	switch {
	case s.Max == 0:
		return ""
	case strings.Contains(s.Value, "SIZE") && s.Min > 1:
		return units.FormatSize(s.Min) + " to " + units.FormatSize(s.Max)
	case strings.Contains(s.Value, "SIZE"):
		return "at most " + units.FormatSize(s.Max)
	}
	return fmt.Sprintf("%d to %d", s.Min, s.Max)
}
