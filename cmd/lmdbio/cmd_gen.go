package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/gen"
	"github.com/lmdbio/lmdbio/internal/meminfo"
	"github.com/lmdbio/lmdbio/internal/units"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

type genOptions struct {
	records    int
	size       string
	out        string
	datum      bool
	jpeg       bool
	seed       int64
	order      string
	txnRecords int
	overwrite  bool
	json       bool
	format     string
	chunk      int
	gzip       int
	shuffle    bool
}

func newGenCommand() *cobra.Command {
	opt := genOptions{records: 1000, size: "110KiB,20KiB", seed: 1, order: "key", format: "lmdb"}
	cmd := &cobra.Command{
		Use: "gen --records N --size MEAN[,SD] [--datum] [--seed S] [--out] DIR\n" +
			"  lmdbio gen --jpeg --records N [--seed S] [--out] DIR\n" +
			"  lmdbio gen --format hdf5 --records N --size CxHxW|BYTES [--chunk ROWS] [--gzip LEVEL] [--shuffle-filter] [--out] FILE",
		Short: "Write a synthetic ImageNet-like LMDB or HDF5 dataset for benchmarks and tests",
		Long: `

Creates DIR/data.mdb with --records records keyed as Caffe's convert_imageset
keys them ("00000042_n01440764/n01440764_42.JPEG"). Value sizes follow a
normal distribution (--size MEAN,SD); values are incompressible random bytes,
wrapped in a Caffe Datum of 3 channels with --datum. With --jpeg every value
is instead an encoded Datum (as convert_imageset --encoded writes) holding a
JPEG of a synthetic photograph of an ImageNet-like size (most 500x375 or
375x500), with edges, texture and noise, about as large as a photograph: data
for the decode and augmentation pipeline (--size does not apply). The same
flags always give the same records; --order random inserts them in a random
order over many transactions, which scatters them over the file.

With --format hdf5, creates the HDF5 file FILE through libhdf5: dataset
"data" holds --records rows of uint8 images of shape --size (e.g. 3x32x32,
or a byte count such as 110KiB for flat rows), pixels with 6 bits of entropy
each; dataset "label" their int64 labels. The rows are contiguous, or in
chunks of --chunk rows, compressed with --gzip LEVEL (after the shuffle
filter with --shuffle-filter); a filter without --chunk means chunks of
about 1 MiB.

A value or row is at most 1 GiB. Before writing, gen refuses an output it
cannot create and a dataset the file system has no room for; a run that
fails later removes what it created.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.jpeg && cmd.Flags().Changed("size") {
				return cli.Usagef("--jpeg writes photographs of ImageNet's sizes: --size does not apply")
			}
			out, err := genOutput(opt.out, args)
			if err != nil {
				return err
			}
			return runGen(out, opt)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opt.records, "records", opt.records, "number of records")
	f.StringVar(&opt.size, "size", opt.size, "value size: MEAN[,SD] (e.g. 110KiB,20KiB)")
	f.StringVar(&opt.out, "out", "", "directory to write the dataset into")
	f.BoolVar(&opt.datum, "datum", opt.datum, "wrap values in a Caffe Datum")
	f.BoolVar(&opt.jpeg, "jpeg", opt.jpeg, "values are encoded Datums of JPEG photographs (synthetic, ImageNet-like)")
	f.Int64Var(&opt.seed, "seed", opt.seed, "random seed")
	f.StringVar(&opt.order, "order", opt.order, "insertion order: key or random")
	f.IntVar(&opt.txnRecords, "txn-records", 0, "records per write transaction (0: 1000)")
	f.BoolVar(&opt.overwrite, "overwrite", false, "replace an existing dataset in DIR")
	f.BoolVar(&opt.json, "json", false, "print one JSON object")
	f.StringVar(&opt.format, "format", opt.format, "lmdb or hdf5")
	f.IntVar(&opt.chunk, "chunk", 0, "hdf5: rows per chunk (0: contiguous)")
	f.IntVar(&opt.gzip, "gzip", 0, "hdf5: gzip (deflate) level 1-9 (0: none)")
	f.BoolVar(&opt.shuffle, "shuffle-filter", false, "hdf5: the shuffle filter before gzip")
	return cmd
}

// genReport is the report of lmdbio gen.
type genReport struct {
	Type     string  `json:"type"`
	Path     string  `json:"path"`
	Records  int     `json:"records"`
	Bytes    int64   `json:"bytes"`
	FileSize int64   `json:"file_size"`
	Seconds  float64 `json:"seconds"`
	MBps     float64 `json:"mb_per_s"`
}

// genOutput is the one output gen writes: the synopsis's "[--out] DIR"
// offers --out and the argument as two spellings of it, so both given must
// agree.
func genOutput(out string, args []string) (string, error) {
	switch {
	case len(args) == 0 && out == "":
		return "", cli.Usagef("needs a DIR to write (with --format hdf5, a FILE)")
	case len(args) == 0:
		return out, nil
	case out != "" && filepath.Clean(out) != filepath.Clean(args[0]):
		return "", cli.Usagef("--out %s and the argument %s name two outputs: give one", out, args[0])
	}
	return args[0], nil
}

func runGen(dir string, opt genOptions) error {
	switch {
	case opt.format == "hdf5":
		return runGenHDF5(dir, opt)
	case opt.format != "lmdb":
		return cli.Usagef("--format %q: want lmdb or hdf5", opt.format)
	case opt.chunk != 0 || opt.gzip != 0 || opt.shuffle:
		return cli.Usagef("--chunk, --gzip and --shuffle-filter need --format hdf5")
	}
	mean, sd, err := parseMeanSD(opt.size)
	if err != nil {
		return cli.UsageError(err)
	}
	if err := checkGenLMDB(dir, opt, mean); err != nil {
		return err
	}
	gopt := gen.Options{Records: opt.records, MeanSize: int(mean), StdDev: int(sd),
		Datum: opt.datum, JPEG: opt.jpeg, Seed: opt.seed, TxnRecords: opt.txnRecords, Overwrite: opt.overwrite}
	switch opt.order {
	case "key":
		gopt.Order = gen.KeyOrder
	case "random":
		gopt.Order = gen.Random
	default:
		return cli.Usagef("--order %q: want key or random", opt.order)
	}
	write := func(progress func(done, total int)) (gen.Summary, error) {
		gopt.Progress = progress
		return gen.Write(dir, gopt)
	}
	return writeGen(dir, opt, write, func(r genReport) string {
		return fmt.Sprintf("%d records, %s of values, data.mdb %s", r.Records, cli.HumanBytes(r.Bytes), cli.HumanBytes(r.FileSize))
	})
}

// writeGen runs write, with a progress line when stderr is a terminal, and
// reports what it wrote: JSON, or "wrote PATH: " what(report) and the time.
func writeGen(path string, opt genOptions, write func(progress func(done, total int)) (gen.Summary, error),
	what func(genReport) string) error {
	var progress func(done, total int)
	if !opt.json && term.IsTerminal(int(os.Stderr.Fd())) {
		progress = genProgress(time.Now())
	}
	sum, err := write(progress)
	if progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	if errors.Is(err, gen.ErrOptions) {
		return cli.UsageError(err)
	}
	if errors.Is(err, fs.ErrExist) {
		return cli.InputError(err)
	}
	if err != nil {
		return err
	}
	r := genReport{Type: "gen", Path: path, Records: sum.Records, Bytes: sum.Bytes, FileSize: sum.FileSize,
		Seconds: sum.Elapsed.Seconds(), MBps: float64(sum.Bytes) / max(sum.Elapsed.Seconds(), 1e-9) / 1e6}
	if opt.json {
		b, _ := json.Marshal(r)
		fmt.Println(string(b))
		return nil
	}
	fmt.Printf("wrote %s: %s, %.1f s (%.0f MB/s)\n", r.Path, what(r), r.Seconds, r.MBps)
	return nil
}

// runGenHDF5 writes an HDF5 file of image rows and labels.
func runGenHDF5(path string, opt genOptions) error {
	if opt.datum || opt.jpeg || opt.order != "key" || opt.txnRecords != 0 {
		return cli.Usagef("--datum, --jpeg, --order and --txn-records are for --format lmdb")
	}
	shape, err := parseImageShape(opt.size)
	if err != nil {
		return cli.UsageError(err)
	}
	if err := checkGenHDF5(path, opt, shape); err != nil {
		return err
	}
	gopt := gen.HDF5Options{Records: opt.records, Shape: shape, Seed: opt.seed, ChunkRows: opt.chunk,
		Gzip: opt.gzip, Shuffle: opt.shuffle, Overwrite: opt.overwrite}
	write := func(progress func(done, total int)) (gen.Summary, error) {
		gopt.Progress = progress
		return gen.WriteHDF5(path, gopt)
	}
	return writeGen(path, opt, write, func(r genReport) string {
		return fmt.Sprintf("%d rows of uint8 %s, %s of values, file %s", r.Records, opt.size, cli.HumanBytes(r.Bytes), cli.HumanBytes(r.FileSize))
	})
}

// checkGenLMDB refuses, before anything is written, an output directory gen
// cannot make and a dataset that cannot be written.
func checkGenLMDB(dir string, opt genOptions, mean int64) error {
	if err := cli.CheckOutDir("--out", dir, dir); err != nil {
		return err
	}
	// The values alone are a lower bound on data.mdb, which liblmdb maps
	// whole into the address space.
	need := float64(opt.records) * float64(mean)
	what := fmt.Sprintf("--records %d of --size %s make at least %s", opt.records, opt.size, humanFloatBytes(need))
	if limit := gen.MapLimit(); need > float64(limit) {
		return cli.Usagef("%s, more than the %s of address space liblmdb can map", what, cli.HumanBytes(limit))
	}
	// The random order is a permutation of the record numbers in memory.
	if avail, ok := meminfo.Available(); ok && opt.order == "random" && 8*float64(opt.records) > float64(avail)/2 {
		return cli.Usagef("--order random with --records %d: its order needs %s of memory, more than half the %s available",
			opt.records, humanFloatBytes(8*float64(opt.records)), cli.HumanBytes(avail))
	}
	return checkFreeSpace(dir, what, need, filepath.Join(dir, "data.mdb"), opt.overwrite)
}

// checkGenHDF5 is checkGenLMDB for an HDF5 file: rows of shape.
func checkGenHDF5(path string, opt genOptions, shape []int) error {
	if err := cli.CheckOutFile("--out", path); err != nil {
		return err
	}
	row := 1.0
	for _, d := range shape {
		row *= float64(d)
	}
	// Pixels of 6 bits of entropy deflate to no less than 6/8 of their
	// size; labels are 8 bytes a row, stored as they are.
	if opt.gzip > 0 {
		row = row * 6 / 8
	}
	need := float64(opt.records) * (row + 8)
	what := fmt.Sprintf("--records %d of --size %s make at least %s", opt.records, opt.size, humanFloatBytes(need))
	return checkFreeSpace(path, what, need, path, opt.overwrite)
}

// checkFreeSpace refuses a dataset of at least need bytes, described by
// what, that the file system it goes to has no room for, counting the
// space of the file --overwrite replaces.
func checkFreeSpace(out, what string, need float64, replaced string, overwrite bool) error {
	at := cli.NearestExisting(out)
	var sfs unix.Statfs_t
	if unix.Statfs(at, &sfs) != nil {
		return nil // no figure to go by: writing will tell
	}
	free := float64(sfs.Bavail) * float64(sfs.Bsize)
	if st, err := os.Stat(replaced); err == nil && overwrite {
		free += float64(st.Size())
	}
	if need > free {
		return cli.Usagef("%s, and the file system of %s has %s free", what, out, humanFloatBytes(free))
	}
	return nil
}

// humanFloatBytes is humanBytes for byte counts that may not fit an int64.
func humanFloatBytes(n float64) string {
	if n < 1<<62 {
		return cli.HumanBytes(int64(n))
	}
	return fmt.Sprintf("%.3g EiB", n/(1<<60))
}

// parseImageShape reads an image shape, "3x32x32", or a byte count for
// flat rows, "110KiB".
func parseImageShape(v string) ([]int, error) {
	if !strings.Contains(v, "x") {
		n, err := units.ParseSize(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--size %q: want an image shape such as 3x32x32, or a row size such as 110KiB", v)
		}
		if n > gen.MaxValueSize {
			return nil, tooLarge(v)
		}
		return []int{int(n)}, nil
	}
	var shape []int
	row := 1
	for _, f := range strings.Split(v, "x") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--size %q: want an image shape such as 3x32x32", v)
		}
		if n > gen.MaxValueSize/row {
			return nil, tooLarge(v)
		}
		shape, row = append(shape, n), row*n
	}
	return shape, nil
}

// tooLarge refuses a value or row size over gen.MaxValueSize.
func tooLarge(size string) error {
	return fmt.Errorf("--size %s: values of at most %s (gen holds each in memory several times while writing it)",
		size, cli.HumanBytes(gen.MaxValueSize))
}

// genProgress returns a progress callback that redraws one stderr line.
func genProgress(start time.Time) func(done, total int) {
	return func(done, total int) {
		fmt.Fprintf(os.Stderr, "\rgen: %d/%d records (%.0f%%), %.0f s", done, total,
			100*float64(done)/float64(max(total, 1)), time.Since(start).Seconds())
	}
}

// parseMeanSD reads "MEAN[,SD]" sizes; SD defaults to 0 (all values alike).
func parseMeanSD(v string) (mean, sd int64, err error) {
	m, s, hasSD := strings.Cut(v, ",")
	if mean, err = units.ParseSize(m); err != nil || mean < 1 {
		return 0, 0, fmt.Errorf("--size %q: want MEAN[,SD] with MEAN at least 1 byte, e.g. 110KiB,20KiB", v)
	}
	if hasSD {
		if sd, err = units.ParseSize(s); err != nil {
			return 0, 0, fmt.Errorf("--size %q: want MEAN[,SD], e.g. 110KiB,20KiB", v)
		}
	}
	// Values drawn beyond the bound are cut to it; a spread that would cut
	// many is a mistake.
	if mean > gen.MaxValueSize || sd > gen.MaxValueSize {
		return 0, 0, tooLarge(v)
	}
	return mean, sd, nil
}
