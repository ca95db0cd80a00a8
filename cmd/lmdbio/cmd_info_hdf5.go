package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// hdf5DatasetInfo is one line of lmdbio info --json for an HDF5 file: a
// dataset and how lmdbio would read it.
type hdf5DatasetInfo struct {
	Type         string   `json:"type"` // "hdf5_dataset"
	Path         string   `json:"path"`
	Name         string   `json:"name"`
	Space        string   `json:"space"` // simple, scalar, null
	Shape        []int64  `json:"shape"`
	ElementType  string   `json:"element_type"`
	ElementBytes int64    `json:"element_bytes"`
	Layout       string   `json:"layout"`
	Chunk        []int64  `json:"chunk,omitempty"`
	ChunkIndex   string   `json:"chunk_index,omitempty"`
	Filters      []string `json:"filters,omitempty"`
	StoredBytes  int64    `json:"stored_bytes"`
	LogicalBytes int64    `json:"logical_bytes"`
	// Read is offset, chunks, libhdf5 or none; Why says why libhdf5, or
	// why not at all.
	Read string `json:"read"`
	Why  string `json:"why,omitempty"`
}

// hdf5Info is the last line of lmdbio info --json for an HDF5 file: the
// source lmdbio reads (--dataset, --labels).
type hdf5Info struct {
	Type          string  `json:"type"` // "info"
	Format        string  `json:"format"`
	Path          string  `json:"path"`
	FileSize      int64   `json:"file_size"`
	Datasets      int     `json:"datasets"`
	Dataset       string  `json:"dataset"`
	Labels        string  `json:"labels,omitempty"`
	Records       int     `json:"records"`
	RowBytes      int64   `json:"row_bytes"`
	LabelBytes    int64   `json:"label_bytes,omitempty"`
	ValueBytes    int64   `json:"value_bytes"`
	Read          string  `json:"read"`
	Blocks        int     `json:"blocks"`
	MaxBlockBytes int64   `json:"max_block_bytes"`
	Note          string  `json:"note,omitempty"`
	Verified      bool    `json:"verified,omitempty"`
	VerifySeconds float64 `json:"verify_seconds,omitempty"`
}

// runInfoHDF5 describes every dataset of an HDF5 file and the source
// --dataset and --labels name, and with --verify reads and decodes all of
// its blocks.
func runInfoHDF5(path string, opt infoOptions) error {
	datasets, err := hdf5.Inspect(path)
	if err != nil {
		return err
	}
	// "none" asks for no labels, as it does of digest and run.
	src, err := hdf5.Open(path, hdf5.Options{Dataset: opt.dataset, Labels: opt.labels, NoLabels: opt.labels == loader.NoLabels})
	if err != nil {
		return err
	}
	sum := hdf5Summary(path, src, len(datasets))
	if opt.verify {
		start := time.Now()
		if err := verifySource(src); err != nil {
			return err
		}
		sum.Verified, sum.VerifySeconds = true, time.Since(start).Seconds()
	}
	lines := make([]hdf5DatasetInfo, len(datasets))
	for i, d := range datasets {
		lines[i] = hdf5DatasetLine(path, d)
	}
	if opt.json {
		for _, l := range lines {
			_ = cli.PrintJSON(os.Stdout, l)
		}
		return cli.PrintJSON(os.Stdout, sum)
	}
	printHDF5Info(lines, sum)
	return nil
}

func hdf5DatasetLine(path string, d hdf5.DatasetInfo) hdf5DatasetInfo {
	l := hdf5DatasetInfo{Type: "hdf5_dataset", Path: path, Name: d.Name, Space: d.Space.String(), Shape: d.Shape,
		ElementType: d.Type.String(), ElementBytes: d.Type.Size, Layout: d.Layout.String(), Chunk: d.Chunk,
		StoredBytes: d.Stored, LogicalBytes: d.Logical, Read: "none", Why: d.Why}
	if d.Read != 0 {
		l.Read = d.Read.String()
	}
	if d.Chunk != nil {
		l.ChunkIndex = d.Index.String()
	}
	for _, f := range d.Filters {
		l.Filters = append(l.Filters, f.String())
	}
	return l
}

func hdf5Summary(path string, src *hdf5.Source, datasets int) hdf5Info {
	info := src.Info()
	read, _ := src.Read()
	s := hdf5Info{Type: "info", Format: info.Format, Path: path, FileSize: info.FileSize, Datasets: datasets,
		Dataset: src.Dataset(), Labels: src.Labels(), Records: src.Len(), ValueBytes: info.ValueBytes,
		Read: read.String(), Blocks: src.Blocks(), MaxBlockBytes: src.MaxDecodedLen(), Note: info.Note}
	if src.Len() > 0 {
		s.RowBytes, s.LabelBytes = src.ValueLen(0), int64(len(src.Label(0)))
	}
	return s
}

// verifySource reads every block of src with pread and decodes it.
func verifySource(src source.Source) error {
	f, err := os.Open(src.Info().Path)
	if err != nil {
		return err
	}
	defer f.Close()
	return source.Scan(src, f, func(int, []byte) error { return nil })
}

func printHDF5Info(lines []hdf5DatasetInfo, s hdf5Info) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "DATASET\tTYPE\tSHAPE\tLAYOUT\tCHUNK\tFILTERS\tSTORED\tLOGICAL\tREAD")
	var why []string
	for _, l := range lines {
		shape := dims(l.Shape)
		if l.Space != "simple" {
			shape = l.Space
		}
		chunk := dims(l.Chunk)
		if chunk == "" {
			chunk = "-"
		}
		filters := strings.Join(l.Filters, ",")
		if filters == "" {
			filters = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Name, l.ElementType, shape, l.Layout, chunk,
			filters, cli.HumanBytes(l.StoredBytes), cli.HumanBytes(l.LogicalBytes), l.Read)
		if l.Why != "" {
			why = append(why, fmt.Sprintf("%s (%s): %s", l.Name, l.Read, l.Why))
		}
	}
	_ = w.Flush()
	for _, line := range why {
		fmt.Println("  " + line)
	}
	fmt.Println()
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("path", "%s", s.Path)
	row("file size", "%s (%d bytes)", cli.HumanBytes(s.FileSize), s.FileSize)
	labels := "none"
	if s.Labels != "" {
		labels = fmt.Sprintf("%s (%d bytes a row)", s.Labels, s.LabelBytes)
	}
	row("records", "%d rows of %s (%d bytes each), labels %s", s.Records, s.Dataset, s.RowBytes, labels)
	row("values", "%s", cli.HumanBytes(s.ValueBytes))
	row("read", "%s: %d blocks of up to %s", readHow(s.Read), s.Blocks, cli.HumanBytes(s.MaxBlockBytes))
	if s.Note != "" {
		row("note", "%s", s.Note)
	}
	if s.Verified {
		row("verified", "every block read and decoded in %.1f s", s.VerifySeconds)
	}
	_ = w.Flush()
}

// readHow says in words how lmdbio reads the rows.
func readHow(read string) string {
	switch read {
	case "offset":
		return "by offset (pread, no decoding)"
	case "chunks":
		return "by chunk (pread, decoded in Go)"
	case "libhdf5":
		return "through libhdf5 (the fallback)"
	}
	return read
}

// dims formats a shape as 10x3x32x32.
func dims(d []int64) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "x")
}
