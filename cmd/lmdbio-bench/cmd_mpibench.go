package main

import (
	"fmt"
	"os"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/meminfo"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
	"github.com/spf13/cobra"
)

type mpibenchOptions struct {
	size  cli.SizeFlag
	iters int
	json  bool
}

func newMPIBenchCommand() *cobra.Command {
	opt := mpibenchOptions{size: 16 << 20, iters: 10}
	cmd := &cobra.Command{
		Use:   "mpibench [--size BYTES] [--iters N] [--json]",
		Short: "Measure the bandwidth of the collectives the loader uses",
		Long: `

Run it as an MPI program (lmdbio run -n 4 -- lmdbio-bench mpibench). Every rank sends
--size bytes in total per iteration through Allgatherv and through Alltoallv;
rank 0 prints the bandwidth each rank sees (bytes sent and received per second,
slowest rank).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMPIBench(opt) },
	}
	cmd.Flags().Var(&opt.size, "size", "bytes each rank sends per iteration (e.g. 64MiB)")
	cmd.Flags().IntVar(&opt.iters, "iters", opt.iters, "iterations per collective")
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object per collective")
	return cmd
}

type mpibenchResult struct {
	Type       string  `json:"type"`
	Collective string  `json:"collective"`
	Ranks      int     `json:"ranks"`
	Nodes      int     `json:"nodes"`
	Bytes      int64   `json:"bytes_per_rank"`
	Seconds    float64 `json:"seconds"`
	MBPerS     float64 `json:"mb_per_s"`
}

func runMPIBench(opt mpibenchOptions) error {
	if opt.iters < 1 || opt.size < 1 {
		return cli.Usagef("--iters and --size must be at least 1")
	}
	job, err := cli.StartJob()
	if err != nil {
		return err
	}
	if err := job.Agree(checkMPIBenchSize(job.Topo, int64(opt.size))); err != nil {
		return job.Finish(err)
	}
	var results []mpibenchResult
	for _, c := range []struct {
		name string
		fn   func(*mpi.Comm, int) (func() error, error)
	}{{"allgatherv", allgathervRound}, {"alltoallv", alltoallvRound}} {
		var r mpibenchResult
		r, err = timeCollective(job, c.name, int(opt.size), opt.iters, c.fn)
		if err != nil {
			break
		}
		results = append(results, r)
	}
	if err == nil && job.Topo.Rank == 0 {
		printMPIBench(results, opt.json)
	}
	return job.Finish(err)
}

// mpibenchBuffers is how many times --size a rank holds at once: a
// collective's send and receive buffers, and the previous collective's
// until Go's collector frees them.
const mpibenchBuffers = 4

// checkMPIBenchSize refuses a --size whose buffers the ranks on this
// machine cannot hold in its available memory: they would die of it, one
// by one, with Go's out-of-memory trace. Collective.
func checkMPIBenchSize(t *topology.Topology, size int64) error {
	ranks, err := hostRanks(t)
	if err != nil {
		return err
	}
	avail, ok := meminfo.Available()
	if !ok {
		return nil
	}
	// Reported by one rank, for the job: it names its command itself.
	if limit := avail / int64(mpibenchBuffers*ranks); size > limit {
		return cli.Usagef("lmdbio-bench mpibench: --size %s: at most %s with %d rank(s) on %s (each holds %d buffers of --size; %s of memory available)",
			cli.HumanBytes(size), cli.HumanBytes(limit), ranks, t.Host, mpibenchBuffers, cli.HumanBytes(avail))
	}
	return nil
}

// hostRanks counts the ranks on this machine: its node's, unless the nodes
// are virtual (LMDBIO_RANKS_PER_NODE), several of which may share one
// machine. Collective.
func hostRanks(t *topology.Topology) (int, error) {
	if !t.Virtual {
		return t.LocalSize, nil
	}
	c, err := t.World.SplitShared(t.Rank)
	if err != nil {
		return 0, err
	}
	defer c.Free()
	return c.Size(), nil
}

// timeCollective runs one collective iters times and reports the slowest
// rank's bandwidth: bytes that left and reached each rank per second.
func timeCollective(job *cli.Job, name string, size, iters int,
	prepare func(*mpi.Comm, int) (func() error, error)) (mpibenchResult, error) {
	world := job.Topo.World
	round, err := prepare(world, size)
	if err != nil {
		return mpibenchResult{}, err
	}
	if err := round(); err != nil { // warm-up: first-touch of buffers and connections
		return mpibenchResult{}, err
	}
	if err := world.Barrier(); err != nil {
		return mpibenchResult{}, err
	}
	start := time.Now()
	for range iters {
		if err := round(); err != nil {
			return mpibenchResult{}, err
		}
	}
	elapsed := []float64{time.Since(start).Seconds()}
	slowest := make([]float64, 1)
	if err := world.AllreduceFloat64(elapsed, slowest, mpi.Max); err != nil {
		return mpibenchResult{}, err
	}
	moved := 2 * float64(size) * float64(iters) // sent plus received
	return mpibenchResult{Type: "mpibench", Collective: name, Ranks: world.Size(), Nodes: job.Topo.Nodes,
		Bytes: int64(size), Seconds: slowest[0], MBPerS: moved / slowest[0] / 1e6}, nil
}

// allgathervRound: every rank contributes size/ranks bytes, so it sends and
// receives about size bytes.
func allgathervRound(c *mpi.Comm, size int) (func() error, error) {
	n := c.Size()
	part := max(size/n, 1)
	counts, displs := evenCounts(n, part)
	send, recv := make([]byte, part), make([]byte, part*n)
	return func() error { return c.Allgatherv(send, recv, counts, displs) }, nil
}

// alltoallvRound: every rank sends size/ranks bytes to every rank.
func alltoallvRound(c *mpi.Comm, size int) (func() error, error) {
	n := c.Size()
	part := max(size/n, 1)
	counts, displs := evenCounts(n, part)
	send, recv := make([]byte, part*n), make([]byte, part*n)
	return func() error { return c.Alltoallv(send, counts, displs, recv, counts, displs) }, nil
}

func evenCounts(n, part int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = part, i*part
	}
	return counts, displs
}

func printMPIBench(results []mpibenchResult, asJSON bool) {
	for _, r := range results {
		if asJSON {
			_ = cli.PrintJSON(os.Stdout, r)
			continue
		}
		fmt.Printf("%-10s ranks=%d nodes=%d bytes/rank=%s  %.0f MB/s per rank (slowest)\n",
			r.Collective, r.Ranks, r.Nodes, cli.HumanBytes(r.Bytes), r.MBPerS)
	}
}
