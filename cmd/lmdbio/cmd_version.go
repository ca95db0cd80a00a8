package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/spf13/cobra"
)

// version is the release this binary was built from; the Makefile sets it
// with -ldflags "-X main.version=...". A plain go build says "devel".
var version = "devel"

// commit is the commit the Makefile saw, for builds in which Go recorded
// none (a git worktree, -buildvcs=false); Go's own record wins.
var commit = ""

type versionOptions struct {
	json bool
}

func newVersionCommand() *cobra.Command {
	var opt versionOptions
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Show the version, commit, Go and MPI library this binary was built with",
		Long: `

The commit comes from the build information Go records when it builds from a
git checkout ("modified" when the checkout had uncommitted changes); the MPI
library is the one the binary is linked against, as MPI_Get_library_version
reports it. lmdbio --version prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := readBuild()
			if opt.json {
				return cli.PrintJSON(cmd.OutOrStdout(), b)
			}
			fmt.Fprint(cmd.OutOrStdout(), b.text())
			return nil
		},
	}
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object")
	return cmd
}

// build describes this binary.
type build struct {
	Type     string `json:"type"`
	Version  string `json:"version"`
	Commit   string `json:"commit"`   // "" when not built from a git checkout
	Modified bool   `json:"modified"` // the checkout had uncommitted changes
	Time     string `json:"commit_time,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	MPI      string `json:"mpi"` // the MPI library's own version line
}

func readBuild() build {
	b := build{Type: "version", Version: version, Commit: commit, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		MPI: firstLine(mpi.LibraryVersion())}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			case "vcs.time":
				b.Time = s.Value
			}
		}
	}
	return b
}

func (b build) text() string {
	commit := b.Commit
	switch {
	case commit == "":
		commit = "unknown (not built from a git checkout)"
	case b.Modified:
		commit += " (modified)"
	}
	if b.Time != "" {
		commit += " " + b.Time
	}
	var s strings.Builder
	fmt.Fprintf(&s, "lmdbio %s\n", b.Version)
	fmt.Fprintf(&s, "commit  %s\n", commit)
	fmt.Fprintf(&s, "go      %s %s\n", b.Go, b.Platform)
	fmt.Fprintf(&s, "mpi     %s\n", b.MPI)
	return s.String()
}
