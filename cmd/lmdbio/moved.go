package main

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/spf13/cobra"
)

// kitCommands are the commands that moved from lmdbio to lmdbio-bench, the
// benchmark and analysis kit's own binary.
var kitCommands = []string{"bench", "model", "stall", "shuffle-quality", "mpibench"}

// movedToKit makes a hidden command for each of kitCommands that says, in
// one line and with the usage status, where it went: scripts written for
// lmdbio bench fail at once instead of with "unknown command".
func movedToKit() []*cobra.Command {
	var cmds []*cobra.Command
	for _, name := range kitCommands {
		cmds = append(cmds, &cobra.Command{
			Use:                name,
			Short:              "moved to lmdbio-bench",
			Hidden:             true,
			DisableFlagParsing: true,
			Args:               cobra.ArbitraryArgs,
			RunE: func(*cobra.Command, []string) error {
				return cli.UsageError(fmt.Errorf("moved to lmdbio-bench: run lmdbio-bench %s", name))
			},
		})
	}
	return cmds
}
