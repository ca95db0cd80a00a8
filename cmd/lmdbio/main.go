// Command lmdbio is the command-line front end of the lmdbio data loader: it
// launches MPI jobs, reads datasets through the loader pipeline and measures it.
package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"
)

// programStart is when this program's own code began: after the exec, the
// dynamic linking, the Go runtime and the packages' initialisation, which
// every process pays to exist. lmdbio bench starts its learners' windows
// here, as a peer's begins after its interpreter and imports.
var programStart = time.Now()

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the process exit status. It is
// separate from main so tests can call it.
func run(args []string) int {
	if len(args) > 0 && args[0] == guardCommand {
		return runGuard(args[1:])
	}
	root := newRootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	name := "lmdbio"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	return reportOnce(name, err)
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "lmdbio",
		Short: "Fast data loading for distributed deep-learning training",
		Long: `lmdbio feeds distributed deep-learning training from LMDB datasets on a shared
parallel file system: one reader rank per node reads the dataset in large
sequential spans and hands samples to the learners on its node through shared
memory.` + exitStatusHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(flagError(err)) })
	root.AddCommand(
		newRunCommand(),
		newAgentCommand(),
		newTopologyCommand(),
		newDoctorCommand(),
		newMPIBenchCommand(),
		newGenCommand(),
		newDigestCommand(),
		newInfoCommand(),
		newIndexCommand(),
		newBenchCommand(),
		newModelCommand(),
		newStallCommand(),
		newShuffleQualityCommand(),
		newVersionCommand(),
	)
	for _, c := range root.Commands() {
		c.Long = c.Short + "." + c.Long + exitStatusHelp
	}
	// lmdbio completion bash|zsh|fish|powershell: cobra's scripts, which
	// complete commands, flags and file names.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				return usagef("no shell %q: want bash, zsh, fish or powershell", args[0])
			}
		}
	}
	usageChecks(root)
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	root.Version = version
	cobra.AddTemplateFunc("buildText", func() string { return readBuild().text() })
	root.SetVersionTemplate("{{buildText}}")
	return root
}
