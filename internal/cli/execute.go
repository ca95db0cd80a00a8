package cli

import "github.com/spf13/cobra"

// Execute runs root on args and returns the process exit status: the
// error, if any, is said once (ReportOnce), naming the command that ran.
func Execute(root *cobra.Command, args []string) int {
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	name := Program
	if cmd != nil {
		name = cmd.CommandPath()
	}
	return ReportOnce(name, err)
}
