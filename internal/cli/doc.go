// Package cli is what lmdbio's two command-line programs share: bin/lmdbio
// (the product every rank and agent runs) and bin/lmdbio-bench (the
// benchmark and analysis kit).
//
// # Overview
//
//   - exit.go: the exit contract (0 success, 1 a runtime failure, 2 bad input
//     or usage), errors marked with it (UsageError, InputError, WithCode),
//     and the one line a failure prints (Report, ErrorLine).
//   - usage.go: cobra's own mistakes (argument counts, unknown commands, bad
//     flag values) made usage errors in the same one-line shape.
//   - mpijob.go: the MPI side of a command that runs as a job: StartJob
//     checks the launch and starts MPI; Agree and Finish make every rank
//     agree on the outcome so one rank reports it.
//   - loaderflags.go, sizeflag.go: the loader's options as flags.
//   - gather.go, outpath.go, format.go, env.go: small helpers both use.
//
// # Invariants
//
//   - Every error a command returns maps to exactly one exit status
//     (ExitCode), and a failure prints exactly one line, starting with
//     Program or with the command that failed.
//   - Agree and Finish are collective: every rank of the job calls them, in
//     the same order.
//   - Nothing here imports the kit (internal/kit/...) or plotting: bin/lmdbio
//     links this package.
package cli
