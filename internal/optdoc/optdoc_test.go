package optdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/loader"
)

const root = "../.."

// TestGenerated: docs/options.md, the list at lmdbio_open in
// include/lmdbio.h and the Python Loader's keywords are the registry's.
func TestGenerated(t *testing.T) {
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is not what the option registry makes (%v): run `go generate ./internal/optdoc` and commit the result", path, err)
		}
	}
}

// TestEveryOptionListed: each file names every option (a check of the
// generator, apart from the comparison above).
func TestEveryOptionListed(t *testing.T) {
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range loader.OptionSpecs() {
		for path, name := range map[string]string{
			MarkdownPath: "| `" + s.Name + "`",
			HeaderPath:   headerPrefix + s.Name + "=",
			PythonPath:   keyword(s.Name),
		} {
			if !strings.Contains(string(files[path]), name) {
				t.Errorf("%s does not list option %s (%q)", path, s.Name, name)
			}
		}
	}
}

// TestSplice: the block after the heading is replaced, the rest kept.
func TestSplice(t *testing.T) {
	text := "a\nHEAD\n  old 1\n  old 2\nb\n"
	got, err := splice(text, "HEAD", "  ", []string{"  new"})
	if err != nil || got != "a\nHEAD\n  new\nb\n" {
		t.Errorf("splice: %q, %v", got, err)
	}
	if _, err := splice(text, "NONE", "  ", nil); err == nil {
		t.Error("splice without its heading: no error")
	}
}

func TestWrap(t *testing.T) {
	lines := wrap("> ", "  ", strings.Repeat("word ", 40))
	for _, l := range lines {
		if len(l) > width {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "> word") || !strings.HasPrefix(lines[1], "  word") {
		t.Errorf("wrap: %q", lines)
	}
}
