// Command lmdbio-bench is lmdbio's benchmark and analysis kit: it measures
// the loader against its peers (bench), finds data stalls (stall), models
// loading at scale (model), studies shuffle quality (shuffle-quality) and
// measures the MPI exchange (mpibench). It is a binary of its own so that
// bin/lmdbio, which every rank runs, links none of it.
package main

import (
	"os"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/spf13/cobra"
)

// programStart is when this program's own code began: after the exec, the
// dynamic linking, the Go runtime and the packages' initialisation, which
// every process pays to exist. lmdbio-bench bench starts its learners'
// windows here, as a peer's begins after its interpreter and imports.
var programStart = time.Now()

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the process exit status. It is
// separate from main so tests can call it.
func run(args []string) int {
	cli.Program = "lmdbio-bench"
	return cli.Execute(newRootCommand(), args)
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "lmdbio-bench",
		Short: "Measure and model lmdbio: benchmarks, data stalls, a model at scale",
		Long: `lmdbio-bench measures the lmdbio data loader: against peer loaders and its own
modes (bench), for data stalls (stall), in a model of loading at scale
(model), for the quality of its shuffles (shuffle-quality), and the MPI
exchange it relies on (mpibench).` + cli.ExitStatusHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cli.UsageError(cli.FlagError(err)) })
	root.AddCommand(
		newBenchCommand(),
		newStallCommand(),
		newModelCommand(),
		newShuffleQualityCommand(),
		newMPIBenchCommand(),
	)
	for _, c := range root.Commands() {
		c.Long = c.Short + "." + c.Long + cli.ExitStatusHelp
	}
	root.CompletionOptions.DisableDefaultCmd = true
	cli.UsageChecks(root)
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	return root
}
