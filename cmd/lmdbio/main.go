// Command lmdbio is the command-line front end of the lmdbio data loader: it
// launches MPI jobs and reads datasets through the loader pipeline. What
// measures it (bench, model, stall, shuffle-quality, mpibench) is the kit's
// own command, lmdbio-bench, so that the binary every rank runs does not
// link the kit's plots and model.
package main

import (
	"os"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/launch"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the process exit status. It is
// separate from main so tests can call it.
func run(args []string) int {
	if len(args) > 0 && args[0] == launch.GuardCommand {
		return launch.RunGuard(args[1:])
	}
	return cli.Execute(newRootCommand(), args)
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "lmdbio",
		Short: "Fast data loading for distributed deep-learning training",
		Long: `lmdbio feeds distributed deep-learning training from LMDB datasets on a shared
parallel file system: one reader rank per node reads the dataset in large
sequential spans and hands samples to the learners on its node through shared
memory.` + cli.ExitStatusHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cli.UsageError(cli.FlagError(err)) })
	root.AddCommand(
		newRunCommand(),
		newAgentCommand(),
		newTopologyCommand(),
		newDoctorCommand(),
		newGenCommand(),
		newDigestCommand(),
		newInfoCommand(),
		newIndexCommand(),
		newVersionCommand(),
	)
	root.AddCommand(movedToKit()...)
	for _, c := range root.Commands() {
		c.Long = c.Short + "." + c.Long + cli.ExitStatusHelp
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
				return cli.Usagef("no shell %q: want bash, zsh, fish or powershell", args[0])
			}
		}
	}
	cli.UsageChecks(root)
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	root.Version = version
	cobra.AddTemplateFunc("buildText", func() string { return readBuild().text() })
	root.SetVersionTemplate("{{buildText}}")
	return root
}
