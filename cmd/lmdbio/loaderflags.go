package main

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/optflags"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// loaderFlags are the loader options shared by the commands that read a
// dataset through the pipeline: one flag per option of the loader's
// registry (package optflags).
type loaderFlags struct{ flags optflags.Flags }

// register adds the flags to fs, with the loader's defaults. remainder is
// the default of --remainder, "" for commands that fix the policy
// themselves and have no such flag.
func (f *loaderFlags) register(fs *pflag.FlagSet, remainder string) { f.flags.Register(fs, remainder) }

// options turns the flags into loader options; remainder overrides the flag
// when the command needs a fixed one. The values were read and refused
// while the flags were parsed; the ranges are the loader's to check.
func (f *loaderFlags) options(remainder *assign.Remainder) (loader.Options, error) {
	return f.flags.Options(remainder), nil
}

// modeName is --mode as the user wrote it.
func (f *loaderFlags) modeName() string { return f.flags.ModeName() }

func (f *loaderFlags) String() string {
	return fmt.Sprintf("mode=%s batch=%d", f.flags.ModeName(), f.flags.Options(nil).Batch)
}
