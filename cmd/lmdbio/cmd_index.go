package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/spf13/cobra"
)

type indexOptions struct {
	rebuild bool
	json    bool
}

func newIndexCommand() *cobra.Command {
	var opt indexOptions
	cmd := &cobra.Command{
		Use:   "index [--rebuild] [--json] PATH",
		Short: "Build or check the index (metadata snapshot) of an LMDB dataset",
		Long: `

The index holds every record's key, file offset and length, so that readers
know where records are without walking the tree. lmdbio builds it when it is
missing, stale (the database changed) or corrupt, and keeps it beside the
database when that directory is writable, else in $LMDBIO_CACHE_DIR (default
$XDG_CACHE_HOME/lmdbio), else only in memory. This command builds it ahead of a
job and says where it is and how long it took.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return cli.WithPath(args[0], runIndex(args[0], opt)) },
	}
	cmd.Flags().BoolVar(&opt.rebuild, "rebuild", false, "build a new index even if a fresh one exists")
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object")
	return cmd
}

func runIndex(path string, opt indexOptions) error {
	if format, err := source.Detect(path); err == nil && format == source.HDF5 {
		// index.Load would read it as an LMDB and complain of its magic.
		return cli.Usagef("an HDF5 file needs no index: lmdbio reads where its rows lie from the file's own layout (lmdbio info shows it)")
	}
	start := time.Now()
	x, from, err := index.Load(path, index.LoadOptions{Rebuild: opt.rebuild})
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if opt.json {
		return cli.PrintJSON(os.Stdout, newIndexReport(x.Len(), x.TotalBytes(), secs, from))
	}
	fmt.Printf("records=%d bytes=%d seconds=%.3f index: %s\n", x.Len(), x.TotalBytes(), secs, from)
	return nil
}

// indexReport is the JSON line of lmdbio index.
type indexReport struct {
	Type     string   `json:"type"`
	Records  int      `json:"records"`
	Bytes    int64    `json:"bytes"` // the sum of the value lengths
	Seconds  float64  `json:"seconds"`
	Built    bool     `json:"built"`             // built now, not read from a saved index
	Location string   `json:"location"`          // where it is kept: sidecar, cache or memory
	Path     string   `json:"index_path"`        // "" when kept in memory
	Ignored  []string `json:"ignored,omitempty"` // saved indexes not trusted: stale-sidecar, corrupt-cache, ...
}

// newIndexReport puts into fields what index.Load says in words: "sidecar
// PATH", "cache PATH", "built, saved to sidecar|cache PATH" or "built, kept
// in memory", then " (ignored stale sidecar, corrupt cache)".
func newIndexReport(records int, bytes int64, secs float64, from string) indexReport {
	r := indexReport{Type: "index", Records: records, Bytes: bytes, Seconds: secs}
	if i := strings.LastIndex(from, " (ignored "); i >= 0 && strings.HasSuffix(from, ")") {
		for _, what := range strings.Split(from[i+len(" (ignored "):len(from)-1], ", ") {
			r.Ignored = append(r.Ignored, strings.ReplaceAll(what, " ", "-"))
		}
		from = from[:i]
	}
	if rest, ok := strings.CutPrefix(from, "built, "); ok {
		r.Built = true
		from = strings.TrimPrefix(rest, "saved to ")
	}
	r.Location, r.Path, _ = strings.Cut(from, " ")
	if r.Location == "kept" {
		r.Location, r.Path = "memory", ""
	}
	return r
}
