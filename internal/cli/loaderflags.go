package cli

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/optflags"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/pflag"
)

// LoaderFlags are the loader options shared by the commands that read a
// dataset through the pipeline: one flag per option of the loader's
// registry (package optflags).
type LoaderFlags struct{ flags optflags.Flags }

// Register adds the flags to fs, with the loader's defaults. remainder is
// the default of --remainder, "" for commands that fix the policy
// themselves and have no such flag.
func (f *LoaderFlags) Register(fs *pflag.FlagSet, remainder string) { f.flags.Register(fs, remainder) }

// Options turns the flags into loader options; remainder overrides the flag
// when the command needs a fixed one. The values were read and refused
// while the flags were parsed; the ranges are the loader's to check.
func (f *LoaderFlags) Options(remainder *assign.Remainder) (loader.Options, error) {
	return f.flags.Options(remainder), nil
}

// Mode is --mode as the user wrote it (or its default), for commands that
// name a contender after it.
func (f *LoaderFlags) Mode() string { return f.flags.ModeName() }

// Batch is the --batch given (or its default), for commands that say when
// something else overrides it.
func (f *LoaderFlags) Batch() int { return f.flags.Options(nil).Batch }

func (f *LoaderFlags) String() string {
	return fmt.Sprintf("mode=%s batch=%d", f.Mode(), f.Batch())
}
