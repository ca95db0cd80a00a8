package main

import (
	"encoding/json"
	"fmt"
	"time"

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
		RunE: func(cmd *cobra.Command, args []string) error { return withPath(args[0], runIndex(args[0], opt)) },
	}
	cmd.Flags().BoolVar(&opt.rebuild, "rebuild", false, "build a new index even if a fresh one exists")
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object")
	return cmd
}

func runIndex(path string, opt indexOptions) error {
	start := time.Now()
	x, from, err := index.Load(path, index.LoadOptions{Rebuild: opt.rebuild})
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if opt.json {
		b, _ := json.Marshal(map[string]any{"type": "index", "records": x.Len(), "value_bytes": x.TotalBytes(),
			"from": from, "seconds": secs})
		fmt.Println(string(b))
		return nil
	}
	fmt.Printf("records=%d value_bytes=%d seconds=%.3f index: %s\n", x.Len(), x.TotalBytes(), secs, from)
	return nil
}
