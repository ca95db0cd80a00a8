// Command gen writes the loader's option list into docs/options.md,
// include/lmdbio.h and python/lmdbio/__init__.py (package optdoc).
//
//	go run ./internal/optdoc/gen [ROOT]
//
// ROOT is the repository's root (default: the working directory);
// `go generate ./internal/optdoc` runs it there.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lmdbio/lmdbio/internal/optdoc"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	if err := write(root); err != nil {
		fmt.Fprintln(os.Stderr, "optdoc:", err)
		os.Exit(1)
	}
}

func write(root string) error {
	files, err := optdoc.Files(root)
	if err != nil {
		return err
	}
	for path, text := range files {
		if err := os.WriteFile(filepath.Join(root, path), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}
