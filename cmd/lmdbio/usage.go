package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageChecks makes the mistakes cobra itself catches usage errors (exit 2,
// one line): a wrong number of arguments, and an unknown command, which
// cobra reports as plain errors (exit 1). Call it after every subcommand
// has been added.
func usageChecks(root *cobra.Command) {
	for _, c := range root.Commands() {
		c.Args = usageArgs(c.Args)
	}
	root.Args = cobra.ArbitraryArgs
	root.SuggestionsMinimumDistance = 2
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q (see lmdbio --help)", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
		}
		return usageError(errors.New(msg))
	}
}

// usageArgs wraps a positional-argument check so its error is a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}
