// Package optflags makes the loader's options command-line flags: one flag
// per option of the loader's registry (loader.OptionSpecs), with its name,
// help and default, read by the registry's own parser. Every command that
// opens a loader shares these flags, so the command line says an option as
// lmdbio_open's option string and Python's keywords do, with the same
// errors.
//
// # Overview
//
// Flags.Register adds the flags to a pflag.FlagSet; after parsing,
// Flags.Options returns the loader options they hold.
//
// # Invariants
//
//   - A flag that is not given holds the registry's default, written out
//     (Options has Batch 64, not 0), so what a command prints of its
//     options is what the loader does.
//   - A bad value is refused while flags are parsed, with the message the
//     option string gives for it; the range check is the loader's, at Open.
package optflags
