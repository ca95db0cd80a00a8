package main

import (
	"fmt"
	"io"
	"os"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/cobra"
)

// shuffleQualityOptions are the flags of lmdbio-bench shuffle-quality.
type shuffleQualityOptions struct {
	records      int
	recordBytes  cli.SizeFlag
	nodes        int
	ranksPerNode int
	batch        int
	chunk        cli.SizeFlag
	chunkWindow  int
	seed         uint64
	epochs       int
	shuffles     string
	localities   string
	json         bool
}

func newShuffleQualityCommand() *cobra.Command {
	opt := shuffleQualityOptions{records: 20000, recordBytes: 110 << 10, nodes: 4, ranksPerNode: 2, batch: loader.DefaultBatch,
		chunk: loader.DefaultChunkBytes, chunkWindow: loader.DefaultChunkWindow, epochs: 3,
		shuffles: "none,local,chunk,global", localities: "on,off"}
	cmd := &cobra.Command{
		Use:   "shuffle-quality [flags]",
		Short: "Measure how close each shuffle's epochs come to a uniform random permutation",
		Long: `

Computes, without reading any data, the orders and the assignment the loader
would use for a dataset of --records records of --record-bytes each (one
record per block, as in an LMDB whose values fill their own pages), read by
--nodes nodes of --ranks-per-node learners with --batch records per learner
batch, and measures for every --shuffle (and every --locality for chunk and
global), averaged over --epochs epochs:

  same batch    how often two records adjacent in the file land in the same
                global batch; the ideal is a uniform permutation's
                expectation, about global batch / records
  displacement  the mean distance between a record's place in the file and
                its place in the epoch's order (global batch after global
                batch), as a fraction of the records; ideal about 1/3
  next epoch    of the pairs that share a global batch, the fraction that
                share one again in the next epoch; ideal as same batch
  cross-node    the fraction of records delivered to a learner on another
                node than the one that reads and caches them: the share the
                exchange moves once the caches are full

Locality changes only which learner gets a record of a global batch, never
the batch's set, so the first three do not depend on it. --json prints one
"shuffle-quality" line per shuffle.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runShuffleQuality(os.Stdout, opt) },
	}
	f := cmd.Flags()
	f.IntVar(&opt.records, "records", opt.records, "records in the dataset")
	f.Var(&opt.recordBytes, "record-bytes", "bytes of every record's value")
	f.IntVar(&opt.nodes, "nodes", opt.nodes, "nodes")
	f.IntVar(&opt.ranksPerNode, "ranks-per-node", opt.ranksPerNode, "learners per node")
	f.IntVarP(&opt.batch, "batch", "b", opt.batch, "records per learner batch")
	f.Var(&opt.chunk, "chunk", "--shuffle chunk: bytes of values per chunk (about: their number is rounded to whole windows)")
	f.IntVar(&opt.chunkWindow, "chunk-window", opt.chunkWindow, "--shuffle chunk: chunks whose records are shuffled together")
	f.Uint64Var(&opt.seed, "seed", 0, "seed of the shuffles")
	f.IntVar(&opt.epochs, "epochs", opt.epochs, "epochs to average over")
	f.StringVar(&opt.shuffles, "shuffle", opt.shuffles, "shuffles to measure, comma-separated")
	f.StringVar(&opt.localities, "locality", opt.localities, "localities for chunk and global, comma-separated: on, off")
	f.BoolVar(&opt.json, "json", false, "print one JSON object per line")
	return cmd
}

func runShuffleQuality(w io.Writer, opt shuffleQualityOptions) error {
	shuffles, err := parseShuffles(opt.shuffles)
	if err != nil {
		return err
	}
	localities, err := parseLocalities(opt.localities)
	if err != nil {
		return err
	}
	if opt.nodes < 1 || opt.ranksPerNode < 1 || opt.nodes > 1<<16 || opt.ranksPerNode > 1<<16 {
		return cli.Usagef("--nodes %d, --ranks-per-node %d: want 1 to 65536", opt.nodes, opt.ranksPerNode)
	}
	if opt.records > 1<<26 {
		return cli.Usagef("--records %d: want at most %d (the measure holds every record's place in memory)", opt.records, 1<<26)
	}
	sizes := make([]int, opt.nodes)
	for i := range sizes {
		sizes[i] = opt.ranksPerNode
	}
	qo := bench.QualityOptions{Records: opt.records, RecordBytes: int64(opt.recordBytes), NodeSizes: sizes, Batch: opt.batch,
		ChunkBytes: int64(opt.chunk), ChunkWindow: opt.chunkWindow, Seed: opt.seed, Epochs: opt.epochs}
	first := true
	var last bench.Quality
	for _, s := range shuffles {
		locs := localities
		if !s.WorldIndependent() {
			locs = []loader.Switch{loader.On}
		}
		for _, loc := range locs {
			q, err := bench.ShuffleQuality(qo, s, loc == loader.On)
			if err != nil {
				return cli.UsageError(err)
			}
			last = q
			if opt.json {
				if err := cli.PrintJSON(w, q); err != nil {
					return err
				}
				continue
			}
			if first {
				fmt.Fprintf(w, "%d records of %s, %d nodes x %d learners, batch %d (global batch %d), chunk %s x %d, %d epochs, seed %d\n",
					q.Records, cli.HumanBytes(q.RecordBytes), q.Nodes, opt.ranksPerNode, q.Batch, q.GlobalBatch,
					cli.HumanBytes(q.ChunkBytes), q.ChunkWindow, q.Epochs, q.Seed)
				fmt.Fprintf(w, "%-8s %-8s %12s %9s %12s %9s %11s %10s\n", "shuffle", "locality", "same batch", "× ideal",
					"displacement", "× ideal", "next epoch", "cross-node")
				first = false
			}
			fmt.Fprintf(w, "%-8s %-8s %12.5f %9.2f %12.4f %9.2f %11.5f %10.3f\n", q.Shuffle, q.Locality, q.SameBatch,
				q.SameBatch/q.SameBatchIdeal, q.Displacement, q.Displacement/q.DisplacementIdeal, q.SameBatchNextEpoch, q.CrossNode)
		}
	}
	if !opt.json && !first {
		fmt.Fprintf(w, "ideal (a uniform permutation): same batch %.5f, displacement %.4f\n", last.SameBatchIdeal, last.DisplacementIdeal)
	}
	return nil
}
