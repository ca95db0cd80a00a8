package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/spf13/cobra"
)

type infoOptions struct {
	json bool
	// HDF5: the source to describe, and whether to read all of it.
	dataset, labels string
	verify          bool
}

func newInfoCommand() *cobra.Command {
	var opt infoOptions
	cmd := &cobra.Command{
		Use:   "info [--json] [--dataset NAME] [--labels NAME] [--verify] PATH",
		Short: "Describe an LMDB or HDF5 dataset: records, tree or datasets, value sizes, layout",
		Long: `

Walks the B+tree's branch and leaf pages once (value bytes are not read) and
prints the record count, tree depth, branch, leaf and overflow pages, the
distribution of value sizes, the file size, and how sequential the layout is:
the fraction of records whose value starts within a page of where the previous
record's value ended, which is what lets a reader fetch the
records of a batch in one large read.

For an HDF5 file (found by its signature, whatever its name), lists every
dataset through its groups: shape, element type, layout, chunk shape,
filters, bytes on disk and logical, and whether lmdbio reads its rows by
offset, by chunk (decoding gzip and shuffle in Go) or through libhdf5 (any
other filter, compact, virtual or external storage), and why. Then it
describes the rows lmdbio would read: --dataset (default data) and
--labels (default label, if present; none for no labels). --verify reads
and decodes every block of them.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return cli.WithPath(args[0], runInfo(args[0], opt)) },
	}
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object (HDF5: one per dataset, then the summary)")
	cmd.Flags().StringVar(&opt.dataset, "dataset", "", "HDF5: the dataset whose rows are the records (default data)")
	cmd.Flags().StringVar(&opt.labels, "labels", "", "HDF5: the labels dataset (default label, if present; none for no labels)")
	cmd.Flags().BoolVar(&opt.verify, "verify", false, "HDF5: read and decode every block of the records")
	return cmd
}

// datasetInfo is the report of lmdbio info.
type datasetInfo struct {
	Type          string  `json:"type"`
	Path          string  `json:"path"`
	FileSize      int64   `json:"file_size"`
	PageSize      int     `json:"page_size"`
	TxnID         uint64  `json:"txn_id"`
	Records       uint64  `json:"records"`
	Depth         int     `json:"depth"`
	BranchPages   uint64  `json:"branch_pages"`
	LeafPages     uint64  `json:"leaf_pages"`
	OverflowPages uint64  `json:"overflow_pages"`
	KeyBytes      uint64  `json:"key_bytes"`
	ValueBytes    uint64  `json:"bytes"` // the sum of the value lengths, as everywhere
	ValueMin      int64   `json:"value_min"`
	ValueMedian   int64   `json:"value_median"`
	ValueMean     float64 `json:"value_mean"`
	ValueP99      int64   `json:"value_p99"`
	ValueMax      int64   `json:"value_max"`
	Sequential    float64 `json:"sequential"`
}

func runInfo(path string, opt infoOptions) error {
	format, err := source.Detect(path)
	switch {
	case format == source.HDF5:
		return runInfoHDF5(path, opt)
	case errors.Is(err, source.ErrUnknownFormat) && isFile(path):
		return cli.InputError(err)
	case format == source.LMDB && (opt.dataset != "" || opt.labels != "" || opt.verify):
		return cli.Usagef("--dataset, --labels and --verify are for HDF5 files")
	}
	dataPath, err := lmdbfmt.DataPath(path)
	if err != nil {
		return err
	}
	f, err := os.Open(dataPath)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	db, err := lmdbfmt.Open(f, st.Size())
	if err != nil {
		return err
	}
	var sizes []int64
	follows, prevEnd := 0, int64(-1)
	stats, err := db.WalkStats(func(r lmdbfmt.Record) error {
		sizes = append(sizes, r.Length)
		// A value that starts within a page of the previous one's end follows
		// it: only page headers lie between, or both sit in one leaf page
		// (where liblmdb stacks values from the page's end downwards).
		if d := r.Offset - prevEnd; prevEnd >= 0 && d <= int64(db.PageSize()) && d >= -int64(db.PageSize()) {
			follows++
		}
		prevEnd = r.Offset + r.Length
		return nil
	})
	if err != nil {
		return err
	}
	m := db.Meta()
	info := datasetInfo{Type: "info", Path: dataPath, FileSize: st.Size(), PageSize: db.PageSize(), TxnID: m.TxnID,
		Records: stats.Records, Depth: m.Depth, BranchPages: m.BranchPages, LeafPages: m.LeafPages,
		OverflowPages: m.OverflowPages, KeyBytes: stats.KeyBytes, ValueBytes: stats.ValueBytes}
	if n := len(sizes); n > 0 {
		slices.Sort(sizes)
		info.ValueMin, info.ValueMedian, info.ValueMax = sizes[0], sizes[n/2], sizes[n-1]
		info.ValueP99 = sizes[min(n-1, n*99/100)]
		info.ValueMean = float64(stats.ValueBytes) / float64(n)
	}
	if len(sizes) > 1 {
		info.Sequential = float64(follows) / float64(len(sizes)-1)
	}
	if opt.json {
		return cli.PrintJSON(os.Stdout, info)
	}
	printInfo(info)
	return nil
}

func printInfo(i datasetInfo) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("path", "%s", i.Path)
	row("file size", "%s (%d bytes)", cli.HumanBytes(i.FileSize), i.FileSize)
	row("page size", "%d", i.PageSize)
	row("transaction", "%d", i.TxnID)
	row("records", "%d", i.Records)
	row("tree depth", "%d", i.Depth)
	row("pages", "%d branch, %d leaf, %d overflow", i.BranchPages, i.LeafPages, i.OverflowPages)
	row("keys", "%s", cli.HumanBytes(int64(i.KeyBytes)))
	row("values", "%s", cli.HumanBytes(int64(i.ValueBytes)))
	row("value size", "min %d, median %d, mean %.0f, p99 %d, max %d", i.ValueMin, i.ValueMedian, i.ValueMean, i.ValueP99, i.ValueMax)
	row("sequential", "%.1f%% of records follow the previous one on disk", 100*i.Sequential)
	_ = w.Flush()
}

// isFile says whether path is a regular file.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
