package main

import (
	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/launch"
	"github.com/spf13/cobra"
)

func newAgentCommand() *cobra.Command {
	var perNode int
	cmd := &cobra.Command{
		Use:    launch.AgentCommand + " --learners-per-node K -- CMD [ARGS...]",
		Short:  "Start a node's learners and read for them (lmdbio run --agent starts it on every node)",
		Hidden: true,
		Long: `

The agent is an MPI rank alone on its node. It starts K learner processes of
CMD with torchrun's environment and LMDBIO_AGENT_SOCKET, through which their
lmdbio library asks it to open datasets and to sum values; the agents agree
on every such call across the nodes, and each is its node's reader. See
lmdbio run --help.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if perNode < 1 || perNode > launch.MaxLearners {
				return cli.Usagef("--learners-per-node %d: want 1 to %d", perNode, launch.MaxLearners)
			}
			if len(args) == 0 {
				return cli.Usagef("needs a CMD to start")
			}
			return launch.RunAgent(perNode, args)
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().IntVar(&perNode, "learners-per-node", 0, "learner processes to start on this node")
	return cmd
}
