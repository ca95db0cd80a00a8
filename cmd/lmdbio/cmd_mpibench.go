package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/spf13/cobra"
)

type mpibenchOptions struct {
	size  sizeFlag
	iters int
	json  bool
}

func newMPIBenchCommand() *cobra.Command {
	opt := mpibenchOptions{size: 16 << 20, iters: 10}
	cmd := &cobra.Command{
		Use:   "mpibench [--size BYTES] [--iters N] [--json]",
		Short: "Measure the bandwidth of the collectives the loader uses",
		Long: `

Run it as an MPI program (lmdbio run -n 4 -- lmdbio mpibench). Every rank sends
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
		return usagef("--iters and --size must be at least 1")
	}
	job, err := startJob()
	if err != nil {
		return err
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
	if err == nil && job.topo.Rank == 0 {
		printMPIBench(results, opt.json)
	}
	return job.finish(err)
}

// timeCollective runs one collective iters times and reports the slowest
// rank's bandwidth: bytes that left and reached each rank per second.
func timeCollective(job *mpiJob, name string, size, iters int,
	prepare func(*mpi.Comm, int) (func() error, error)) (mpibenchResult, error) {
	world := job.topo.World
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
	return mpibenchResult{Type: "mpibench", Collective: name, Ranks: world.Size(), Nodes: job.topo.Nodes,
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
			b, _ := json.Marshal(r)
			fmt.Println(string(b))
			continue
		}
		fmt.Printf("%-10s ranks=%d nodes=%d bytes/rank=%s  %.0f MB/s per rank (slowest)\n",
			r.Collective, r.Ranks, r.Nodes, humanBytes(r.Bytes), r.MBPerS)
	}
}
