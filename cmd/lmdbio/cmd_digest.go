package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/cobra"
)

type digestOptions struct {
	loader  loaderFlags
	json    bool
	verbose bool
}

func newDigestCommand() *cobra.Command {
	var opt digestOptions
	cmd := &cobra.Command{
		Use:   "digest [flags] PATH",
		Short: "Read every record once through the loader and print a digest",
		Long: `

PATH is an LMDB directory or its data.mdb file. Every record is read exactly
once through the real pipeline (index, planner, node reader, shared memory,
learner); every learner hashes what it received and rank 0 prints

  records=N bytes=B digest=HHHHHHHHHHHHHHHH

where bytes is the sum of the value lengths and digest the sum, modulo 2^64, of
the little-endian uint64 made of the first 8 bytes of SHA-256(key || value) over
all records. The line is the same for any number of ranks and any mode. With
--epochs, one line per epoch, prefixed epoch=E. Run it as an MPI program:
lmdbio run -n 4 -- lmdbio digest PATH.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDigest(args[0], opt, cmd.Flags().Changed("epochs"))
		},
	}
	opt.loader.register(cmd.Flags(), "") // always keep: every record once
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object per epoch")
	cmd.Flags().BoolVarP(&opt.verbose, "verbose", "v", false, "also print time and throughput on stderr")
	return cmd
}

// epochSum is what one learner adds to an epoch's digest.
type epochSum struct {
	records, bytes int64
	digest         uint64
	seconds        float64
}

func runDigest(path string, opt digestOptions, perEpoch bool) error {
	keep := assign.Keep // exactly once, whatever the rank count
	lopt, err := opt.loader.options(&keep)
	if err != nil {
		return err
	}
	job, err := startJob()
	if err != nil {
		return err
	}
	lopt.Topology = job.topo
	ld, err := loader.Open(path, lopt)
	if err != nil {
		return job.finish(withPath(path, err))
	}
	for epoch := 0; epoch < lopt.Epochs; epoch++ {
		start := time.Now()
		sum, err := digestEpoch(ld)
		if err != nil {
			ld.Close()
			job.fail(withPath(path, err))
		}
		sum.seconds = time.Since(start).Seconds()
		total, err := reduceSums(job, sum)
		if err != nil {
			job.fail(err)
		}
		if job.topo.Rank == 0 {
			printDigest(os.Stdout, epoch, total, perEpoch, opt, job, lopt)
		}
	}
	return job.finish(withPath(path, ld.Close()))
}

// digestEpoch hashes every record this learner receives in one epoch.
func digestEpoch(ld *loader.Loader) (epochSum, error) {
	var s epochSum
	h := sha256.New()
	var sum [sha256.Size]byte
	for {
		b, err := ld.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, err
		}
		for i := range b.Keys {
			h.Reset()
			h.Write(b.Keys[i])
			h.Write(b.Values[i])
			s.digest += binary.LittleEndian.Uint64(h.Sum(sum[:0]))
			s.records++
			s.bytes += int64(len(b.Values[i]))
		}
	}
}

// reduceSums adds up every learner's sums at rank 0; the time is the
// slowest learner's.
func reduceSums(job *mpiJob, s epochSum) (epochSum, error) {
	world := job.topo.World
	mine := make([]byte, 32)
	binary.LittleEndian.PutUint64(mine, uint64(s.records))
	binary.LittleEndian.PutUint64(mine[8:], uint64(s.bytes))
	binary.LittleEndian.PutUint64(mine[16:], s.digest)
	binary.LittleEndian.PutUint64(mine[24:], uint64(s.seconds*1e9))
	all := make([]byte, 32*world.Size())
	if err := world.Gather(mine, all, 0); err != nil {
		return s, err
	}
	var t epochSum
	for i := 0; i < world.Size(); i++ {
		row := all[32*i:]
		t.records += int64(binary.LittleEndian.Uint64(row))
		t.bytes += int64(binary.LittleEndian.Uint64(row[8:]))
		t.digest += binary.LittleEndian.Uint64(row[16:])
		t.seconds = max(t.seconds, float64(binary.LittleEndian.Uint64(row[24:]))/1e9)
	}
	return t, nil
}

func printDigest(w io.Writer, epoch int, s epochSum, perEpoch bool, opt digestOptions, job *mpiJob, lopt loader.Options) {
	mbps := float64(s.bytes) / max(s.seconds, 1e-9) / 1e6
	if opt.json {
		b, _ := json.Marshal(map[string]any{"type": "digest", "epoch": epoch, "records": s.records, "bytes": s.bytes,
			"digest": fmt.Sprintf("%016x", s.digest), "seconds": s.seconds, "mb_per_s": mbps,
			"ranks": job.topo.Size, "nodes": job.topo.Nodes, "mode": lopt.Mode.String()})
		fmt.Fprintln(w, string(b))
		return
	}
	prefix := ""
	if perEpoch {
		prefix = fmt.Sprintf("epoch=%d ", epoch)
	}
	fmt.Fprintf(w, "%srecords=%d bytes=%d digest=%016x\n", prefix, s.records, s.bytes, s.digest)
	if opt.verbose {
		fmt.Fprintf(os.Stderr, "lmdbio digest: %d ranks on %d nodes, mode %s: %.3f s, %.0f MB/s, %.0f records/s\n",
			job.topo.Size, job.topo.Nodes, lopt.Mode, s.seconds, mbps, float64(s.records)/max(s.seconds, 1e-9))
	}
}

// withPath puts the dataset's path in front of an error, as every error
// about a dataset reads: "lmdbio: PATH: what is wrong".
func withPath(path string, err error) error {
	if err == nil {
		return nil
	}
	return &pathError{path: path, err: err}
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }
