// Package optdoc writes the loader's option list wherever people read it:
// docs/options.md, the list at lmdbio_open in include/lmdbio.h and the
// keywords in the Python Loader's docstring (python/lmdbio/__init__.py),
// all from the registry in package loader (loader.OptionSpecs).
//
// # Overview
//
// Files computes what the three files must hold: docs/options.md whole,
// and in the other two the block of lines that follows a fixed heading
// line. `go generate ./internal/optdoc` writes them (gen/main.go); the
// package's test fails when a file in the tree differs, and says to run
// it.
//
// # Invariants
//
//   - Every option of the registry is listed in all three files, in the
//     registry's order, and nothing else is.
//   - Files changes only the generated blocks: the text around them is the
//     file's own, kept byte for byte.
package optdoc

//go:generate go run ./gen ../..
