package optdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/loader"
)

// The generated files, relative to the repository's root.
const (
	MarkdownPath = "docs/options.md"
	HeaderPath   = "include/lmdbio.h"
	PythonPath   = "python/lmdbio/__init__.py"
)

// A generated block follows its heading line and runs while lines start
// with its prefix.
const (
	headerHeading = " * lmdbio command's flags of the same names (docs/options.md says more):"
	headerPrefix  = " *   "
	pythonHeading = "    Keywords (docs/options.md says more):"
	pythonPrefix  = "        "
)

// width is the longest line the blocks are wrapped to.
const width = 80

// Files returns what the generated files must hold, by path relative to
// root, given the other two as they are under root.
func Files(root string) (map[string][]byte, error) {
	out := map[string][]byte{MarkdownPath: []byte(Markdown())}
	for _, f := range []struct {
		path, heading, prefix string
		block                 []string
	}{
		{HeaderPath, headerHeading, headerPrefix, HeaderBlock()},
		{PythonPath, pythonHeading, pythonPrefix, PythonBlock()},
	} {
		old, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			return nil, err
		}
		text, err := splice(string(old), f.heading, f.prefix, f.block)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		out[f.path] = []byte(text)
	}
	return out, nil
}

// HeaderBlock is lmdbio_open's option list: key=VALUE, then what it does
// and its default.
func HeaderBlock() []string {
	const column = 18 // where the help starts, after the key and its value
	var lines []string
	for _, s := range loader.OptionSpecs() {
		key := s.Name + "=" + s.Value
		help := s.Help
		if s.Default != "" {
			help += " (" + s.Default + ")"
		}
		first := headerPrefix + key
		if len(key) < column-1 {
			first += strings.Repeat(" ", column-len(key))
		} else {
			lines = append(lines, first)
			first = headerPrefix + strings.Repeat(" ", column)
		}
		lines = append(lines, wrap(first, headerPrefix+strings.Repeat(" ", column), help)...)
	}
	return lines
}

// PythonBlock is the Loader docstring's list of keywords: the option keys
// with "_" for "-".
func PythonBlock() []string {
	var words []string
	for _, s := range loader.OptionSpecs() {
		words = append(words, keyword(s.Name))
	}
	return wrap(pythonPrefix, pythonPrefix, strings.Join(words, ", "))
}

func keyword(name string) string { return strings.ReplaceAll(name, "-", "_") }

// wrap fills text into lines of at most width characters, the first
// starting with first and the others with indent.
func wrap(first, indent, text string) []string {
	var lines []string
	line := first
	fresh := true // nothing of text on the line yet
	for _, w := range strings.Fields(text) {
		if !fresh && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line, fresh = indent, true
		}
		if !fresh {
			line += " "
		}
		line += w
		fresh = false
	}
	return append(lines, line)
}

// splice replaces the lines after the line heading that start with prefix
// by block.
func splice(text, heading, prefix string, block []string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.TrimSuffix(l, "\n") != heading {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.HasPrefix(lines[end], prefix) {
			end++
		}
		var b strings.Builder
		for _, l := range lines[:i+1] {
			b.WriteString(l)
		}
		for _, l := range block {
			b.WriteString(l + "\n")
		}
		for _, l := range lines[end:] {
			b.WriteString(l)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("no line %q to put the option list after", heading)
}
