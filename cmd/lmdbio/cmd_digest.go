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
	"path/filepath"
	"slices"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/spf13/cobra"
)

type digestOptions struct {
	loader    cli.LoaderFlags
	json      bool
	verbose   bool
	stopAfter int
	stateOut  string
	resume    string
}

func newDigestCommand() *cobra.Command {
	var opt digestOptions
	cmd := &cobra.Command{
		Use:   "digest [flags] PATH",
		Short: "Read every record once through the loader and print a digest",
		Long: `

PATH is an LMDB directory or its data.mdb file. Every record is read exactly
once per epoch through the real pipeline (index, planner, node reader, shared
memory, exchange between nodes, learner); every learner hashes what it
received and rank 0 prints

  records=N bytes=B digest=HHHHHHHHHHHHHHHH

where bytes is the sum of the value lengths and digest the sum, modulo 2^64, of
the little-endian uint64 made of the first 8 bytes of SHA-256(key || value) over
all records. The line is the same for any number of ranks, any mode and any
shuffle. With --prep SPEC, value stands for the record's prepped sample (its
bytes in the output tensor) and bytes for their sum: a prep digest, the same
for any number of ranks, nodes and prep threads, since every random choice
comes from (seed, epoch, record). With --epochs, one line per epoch, prefixed
epoch=E. Run it as an MPI
program: lmdbio run -n 4 -- lmdbio digest PATH.

With --json, one object per epoch with, besides the digest, the epoch's order
(the first 8 bytes of SHA-256 over every global batch's record numbers, sorted,
as little-endian uint64s, batch after batch), storage_bytes (read from the
dataset file by all node readers), exchange_bytes (values sent between nodes),
cache_hits (records served from a node cache) and seconds.

--stop-after N stops after N global batches and --state-out FILE writes where
the run stopped; --resume FILE continues it, also with another number of ranks
(the same global batch size: --batch x ranks).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDigest(args[0], opt, cmd.Flags().Changed("epochs"))
		},
	}
	opt.loader.Register(cmd.Flags(), "") // always keep: every record once
	f := cmd.Flags()
	f.BoolVar(&opt.json, "json", false, "print one JSON object per epoch")
	f.BoolVarP(&opt.verbose, "verbose", "v", false, "also print time and throughput on stderr")
	f.IntVar(&opt.stopAfter, "stop-after", 0, "stop after this many global batches (0: read every epoch)")
	f.StringVar(&opt.stateOut, "state-out", "", "write the run's state (JSON) to this file at the end, for --resume")
	f.StringVar(&opt.resume, "resume", "", "continue the run whose state this file holds")
	return cmd
}

// epochSum is what one learner adds to an epoch's figures.
type epochSum struct {
	records, bytes int64
	digest         uint64
	seconds        float64
	stats          loader.EpochStats
}

func runDigest(path string, opt digestOptions, perEpoch bool) error {
	keep := assign.Keep // exactly once, whatever the rank count
	lopt, err := opt.loader.Options(&keep)
	if err != nil {
		return err
	}
	if opt.stopAfter < 0 {
		return cli.Usagef("--stop-after %d: want 0 or more", opt.stopAfter)
	}
	if opt.stateOut != "" && !lopt.Mode.PROV {
		return cli.Usagef("--state-out: --mode %v reads by cursor and cannot be resumed (use the default mode)", lopt.Mode)
	}
	if opt.resume != "" {
		if lopt.Resume, err = readState(opt.resume); err != nil {
			return err
		}
	}
	job, err := cli.StartJob()
	if err != nil {
		return err
	}
	lopt.Topology = job.Topo
	if job.Topo.Rank == 0 && opt.stateOut != "" {
		err = cli.CheckOutFile("--state-out", opt.stateOut)
	}
	if err = job.Agree(err); err != nil {
		return job.Finish(err)
	}
	ld, err := loader.Open(path, lopt)
	if err != nil {
		return job.Finish(cli.WithPath(path, err))
	}
	lopt.Direct = ld.Direct() // what the node readers do, for the figures
	left := opt.stopAfter
	for ld.Epoch() < lopt.Epochs {
		epoch := ld.Epoch()
		start := time.Now()
		sum, rounds, err := digestEpoch(ld, &left, opt.stopAfter > 0)
		if err != nil {
			ld.Close()
			job.Fail(cli.WithPath(path, err))
		}
		sum.seconds = time.Since(start).Seconds()
		sum.stats = ld.EpochStats(epoch)
		total, err := reduceSums(job, sum)
		if err != nil {
			job.Fail(err)
		}
		order, err := gatherOrder(job, rounds)
		if err != nil {
			job.Fail(err)
		}
		if job.Topo.Rank == 0 {
			printDigest(os.Stdout, epoch, total, order, perEpoch, opt, job, lopt)
		}
		if opt.stopAfter > 0 && left == 0 {
			break
		}
	}
	if err := writeState(job, ld, opt.stateOut); err != nil {
		ld.Close()
		return job.Finish(err)
	}
	return job.Finish(cli.WithPath(path, ld.Close()))
}

// readState reads a --resume file.
func readState(path string) (*loader.State, error) {
	s, err := loader.ReadStateFile(path)
	if err != nil {
		return nil, cli.UsageError(cli.WithPath(path, err))
	}
	return s, nil
}

// writeState writes the run's state on rank 0 (every learner is at the
// same state).
func writeState(job *cli.Job, ld *loader.Loader, path string) error {
	if path == "" || job.Topo.Rank != 0 {
		return nil
	}
	b, err := json.Marshal(ld.State())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return cli.WithPath(path, os.WriteFile(path, append(b, '\n'), 0o644))
}

// roundRecords are the records this learner got in one round (global batch).
type roundRecords struct {
	round   int
	records []int
}

// digestEpoch hashes every record this learner receives in one epoch, or
// until *left batches were read when limited.
func digestEpoch(ld *loader.Loader, left *int, limited bool) (epochSum, []roundRecords, error) {
	var s epochSum
	var rounds []roundRecords
	first := ld.State().GlobalBatches
	h := sha256.New()
	var sum [sha256.Size]byte
	for !limited || *left > 0 {
		b, err := ld.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return s, rounds, nil
		}
		if err != nil {
			return s, rounds, err
		}
		rounds = append(rounds, roundRecords{round: first + len(rounds), records: slices.Clone(b.Records)})
		values := recordBytes(b)
		for i := range b.Keys {
			h.Reset()
			h.Write(b.Keys[i])
			h.Write(values[i])
			s.digest += binary.LittleEndian.Uint64(h.Sum(sum[:0]))
			s.records++
			s.bytes += int64(len(values[i]))
		}
		*left--
	}
	return s, rounds, nil
}

// recordBytes is what the digest hashes of each record: its value or, with
// --prep, its prepped sample (the prep digest: the same contract over the
// output tensors, so it agrees at any number of ranks, nodes and prep
// threads).
func recordBytes(b loader.Batch) [][]byte {
	if b.Images == nil {
		return b.Values
	}
	out := make([][]byte, len(b.Keys))
	if n := len(b.Keys); n > 0 {
		one := len(b.Images) / n
		for i := range out {
			out[i] = b.Images[i*one : (i+1)*one]
		}
	}
	return out
}

// reduceSums adds up every learner's sums at rank 0; the time is the
// slowest learner's.
func reduceSums(job *cli.Job, s epochSum) (epochSum, error) {
	world := job.Topo.World
	const width = 10 * 8
	mine := make([]byte, 0, width)
	for _, v := range []uint64{uint64(s.records), uint64(s.bytes), s.digest, uint64(s.seconds * 1e9),
		uint64(s.stats.StorageBytes), uint64(s.stats.ExchangeBytes), uint64(s.stats.CacheHits),
		uint64(s.stats.DecodedBytes), uint64(s.stats.DecodeSeconds * 1e9), uint64(s.stats.StorageReads)} {
		mine = binary.LittleEndian.AppendUint64(mine, v)
	}
	all := make([]byte, width*world.Size())
	if err := world.Gather(mine, all, 0); err != nil {
		return s, err
	}
	var t epochSum
	for i := 0; i < world.Size(); i++ {
		row := func(k int) uint64 { return binary.LittleEndian.Uint64(all[width*i+8*k:]) }
		t.records += int64(row(0))
		t.bytes += int64(row(1))
		t.digest += row(2)
		t.seconds = max(t.seconds, float64(row(3))/1e9)
		t.stats.StorageBytes += int64(row(4))
		t.stats.ExchangeBytes += int64(row(5))
		t.stats.CacheHits += int64(row(6))
		t.stats.DecodedBytes += int64(row(7))
		t.stats.DecodeSeconds += float64(row(8)) / 1e9
		t.stats.StorageReads += int64(row(9))
	}
	return t, nil
}

// gatherOrder collects every learner's rounds at rank 0 and hashes the
// epoch's order: for every global batch in turn, its record numbers sorted,
// each as a little-endian uint64. Which learner got which record does not
// change it; the global batches and their order do.
func gatherOrder(job *cli.Job, rounds []roundRecords) (string, error) {
	var mine []byte
	for _, r := range rounds {
		mine = binary.LittleEndian.AppendUint64(mine, uint64(r.round))
		mine = binary.LittleEndian.AppendUint64(mine, uint64(len(r.records)))
		for _, rec := range r.records {
			mine = binary.LittleEndian.AppendUint64(mine, uint64(rec))
		}
	}
	all, err := job.Topo.World.GatherBytes(mine, 0)
	if err != nil || job.Topo.Rank != 0 {
		return "", err
	}
	batches := map[uint64][]uint64{}
	for _, b := range all {
		for len(b) >= 16 {
			round, n := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
			b = b[16:]
			for i := uint64(0); i < n && len(b) >= 8; i++ {
				batches[round] = append(batches[round], binary.LittleEndian.Uint64(b))
				b = b[8:]
			}
		}
	}
	keys := make([]uint64, 0, len(batches))
	for k := range batches {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	var word [8]byte
	for _, k := range keys {
		recs := batches[k]
		slices.Sort(recs)
		for _, r := range recs {
			binary.LittleEndian.PutUint64(word[:], r)
			h.Write(word[:])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8]), nil
}

func printDigest(w io.Writer, epoch int, s epochSum, order string, perEpoch bool, opt digestOptions, job *cli.Job, lopt loader.Options) {
	mbps := float64(s.bytes) / max(s.seconds, 1e-9) / 1e6
	if opt.json {
		_ = cli.PrintJSON(w, map[string]any{"type": "digest", "epoch": epoch, "records": s.records, "bytes": s.bytes,
			"digest": fmt.Sprintf("%016x", s.digest), "order": order, "seconds": s.seconds, "mb_per_s": mbps,
			"storage_bytes": s.stats.StorageBytes, "storage_reads": s.stats.StorageReads,
			"exchange_bytes": s.stats.ExchangeBytes, "cache_hits": s.stats.CacheHits,
			"decoded_bytes": s.stats.DecodedBytes, "decode_seconds": s.stats.DecodeSeconds,
			"ranks": job.Topo.Size, "nodes": job.Topo.Nodes, "mode": lopt.Mode.String(), "shuffle": lopt.Shuffle.String(),
			"direct": lopt.Direct})
		return
	}
	prefix := ""
	if perEpoch {
		prefix = fmt.Sprintf("epoch=%d ", epoch)
	}
	fmt.Fprintf(w, "%srecords=%d bytes=%d digest=%016x\n", prefix, s.records, s.bytes, s.digest)
	if opt.verbose {
		fmt.Fprintf(os.Stderr, "lmdbio digest: %d ranks on %d nodes, mode %s, shuffle %s: %.3f s, %.0f MB/s, %.0f records/s, %d bytes from storage, %d exchanged, %d cache hits\n",
			job.Topo.Size, job.Topo.Nodes, lopt.Mode, lopt.Shuffle, s.seconds, mbps, float64(s.records)/max(s.seconds, 1e-9),
			s.stats.StorageBytes, s.stats.ExchangeBytes, s.stats.CacheHits)
	}
}
