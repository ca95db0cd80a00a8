package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/spf13/cobra"
)

type topologyOptions struct {
	json bool
}

func newTopologyCommand() *cobra.Command {
	var opt topologyOptions
	cmd := &cobra.Command{
		Use:   "topology [--json]",
		Short: "Show where every rank of an MPI job runs",
		Long: `

Run it as an MPI program (lmdbio run -n 4 -- lmdbio topology). Rank 0 prints one
line per rank: world rank, node id, local rank, local size, host and pid. A node
is the set of ranks that share memory, or LMDBIO_RANKS_PER_NODE consecutive ranks
when that variable is set.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTopology(opt) },
	}
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object per rank")
	return cmd
}

// rankLine is one rank's row of the topology report.
type rankLine struct {
	Type      string `json:"type"`
	Rank      int    `json:"rank"`
	Node      int    `json:"node"`
	LocalRank int    `json:"local_rank"`
	LocalSize int    `json:"local_size"`
	Host      string `json:"host"`
	Pid       int    `json:"pid"`
}

func runTopology(opt topologyOptions) error {
	job, err := cli.StartJob()
	if err != nil {
		return err
	}
	t := job.Topo
	line := rankLine{"rank", t.Rank, t.Node, t.LocalRank, t.LocalSize, t.Host, os.Getpid()}
	text := fmt.Sprintf("rank=%d node=%d local_rank=%d local_size=%d host=%s pid=%d",
		line.Rank, line.Node, line.LocalRank, line.LocalSize, line.Host, line.Pid)
	if opt.json {
		b, _ := json.Marshal(line)
		text = string(b)
	}
	lines, err := cli.GatherStrings(t.World, text+"\n", 0)
	if err == nil && t.Rank == 0 {
		fmt.Print(strings.Join(lines, ""))
	}
	return job.Finish(err)
}
