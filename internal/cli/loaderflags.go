package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/spf13/pflag"
)

// LoaderFlags are the loader options shared by the commands that read a
// dataset through the pipeline.
type LoaderFlags struct {
	mode      string
	batch     int
	epochs    int
	remainder string
	direct    bool
	stagger   int
	window    SizeFlag
	prefetch  int
	maxSpan   SizeFlag
	maxGap    SizeFlag
	ioDepth   int

	shuffle     string
	seed        uint64
	chunk       SizeFlag
	chunkWindow int
	locality    string
	cache       string
	dataset     string
	labels      string
	views       string
}

// Register adds the flags to fs, with the loader's defaults. remainder is
// the default of --remainder, "" for commands that fix the policy
// themselves and have no such flag.
func (f *LoaderFlags) Register(fs *pflag.FlagSet, remainder string) {
	f.window, f.maxSpan, f.maxGap = loader.DefaultWindow, loader.DefaultMaxSpan, loader.DefaultMaxGap
	f.chunk = loader.DefaultChunkBytes
	fs.StringVar(&f.mode, "mode", "default", "reading mode: "+strings.Join(loader.ModeNames(), ", ")+", or default (all optimisations)")
	fs.IntVarP(&f.batch, "batch", "b", loader.DefaultBatch, "records per learner batch")
	fs.IntVar(&f.epochs, "epochs", loader.DefaultEpochs, "epochs to read")
	if remainder != "" {
		fs.StringVar(&f.remainder, "remainder", remainder, "records that do not fill a round: drop-last, pad (repeat records) or keep (short last batches)")
	}
	fs.BoolVar(&f.direct, "direct", false, "read with O_DIRECT, bypassing the page cache")
	fs.IntVar(&f.stagger, "stagger", loader.DefaultStagger, "node readers on storage at once (with the stag optimisation)")
	fs.Var(&f.window, "window", "bytes a node reads per window (coalescing)")
	fs.IntVar(&f.prefetch, "prefetch", loader.DefaultPrefetch, "windows read ahead of the learners")
	fs.Var(&f.maxSpan, "max-span", "largest single read")
	fs.Var(&f.maxGap, "max-gap", "unneeded bytes read through to merge two reads")
	fs.IntVar(&f.ioDepth, "io-depth", loader.DefaultIODepth, "reads in flight per node reader")
	fs.StringVar(&f.shuffle, "shuffle", "none", "order of every epoch: "+strings.Join(sampler.ShuffleNames(), ", ")+
		" (none: the file's order; chunk: shuffled chunks of the file; global: a random permutation; local: each node shuffles its own share)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the shuffles")
	fs.Var(&f.chunk, "chunk", "--shuffle chunk: bytes of values per chunk (about: their number is rounded to whole windows)")
	fs.IntVar(&f.chunkWindow, "chunk-window", loader.DefaultChunkWindow, "--shuffle chunk: chunks whose records are shuffled together")
	fs.StringVar(&f.locality, "locality", "on", "locality-aware assignment for chunk and global: learners first take the records their node holds (on, off)")
	fs.StringVar(&f.dataset, "dataset", "", "HDF5: the dataset whose rows are the records (default data)")
	fs.StringVar(&f.labels, "labels", "", "HDF5: the labels dataset delivered with the rows (default label, if the file has one; none for no labels)")
	fs.StringVar(&f.views, "views", "auto", "learners read values through a read-only mapping of the data file where that is safe: on, off, or auto (for a single epoch or without --cache)")
	fs.StringVar(&f.cache, "cache", "auto", "shared memory per node for a cache of the samples it loaded, never evicted: a size, auto (what fits; none for a single epoch in the file's order, which reads no sample twice) or 0 (off)")
}

// Options turns the flags into loader options; remainder overrides the flag
// when the command needs a fixed one.
func (f *LoaderFlags) Options(remainder *assign.Remainder) (loader.Options, error) {
	mode, err := loader.ParseMode(f.mode)
	if err != nil {
		return loader.Options{}, UsageError(err)
	}
	opt := loader.Options{Mode: mode, Batch: f.batch, Epochs: f.epochs, Direct: f.direct, Stagger: f.stagger,
		Window: int64(f.window), Prefetch: f.prefetch, MaxSpan: int64(f.maxSpan), MaxGap: int64(f.maxGap),
		IODepth: f.ioDepth, Seed: f.seed, ChunkBytes: int64(f.chunk), ChunkWindow: f.chunkWindow,
		Dataset: f.dataset, Labels: f.labels}
	if opt.Shuffle, err = sampler.ParseShuffle(cmp.Or(f.shuffle, "none")); err != nil {
		return loader.Options{}, Usagef("--shuffle: %v", err)
	}
	if opt.Locality, err = loader.ParseSwitch(cmp.Or(f.locality, "on")); err != nil {
		return loader.Options{}, Usagef("--locality %v", err)
	}
	if opt.Views, err = loader.ParseViews(cmp.Or(f.views, "auto")); err != nil {
		return loader.Options{}, Usagef("--views %v", err)
	}
	if opt.Cache, err = parseCache(f.cache); err != nil {
		return loader.Options{}, UsageError(err)
	}
	if remainder != nil {
		opt.Remainder = *remainder
	} else if opt.Remainder, err = assign.ParseRemainder(f.remainder); err != nil {
		return loader.Options{}, UsageError(err)
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{"batch", int64(f.batch)}, {"epochs", int64(f.epochs)}, {"stagger", int64(f.stagger)},
		{"window", int64(f.window)}, {"prefetch", int64(f.prefetch)}, {"max-span", int64(f.maxSpan)},
		{"io-depth", int64(f.ioDepth)}, {"chunk", int64(f.chunk)}, {"chunk-window", int64(f.chunkWindow)}} {
		if c.v < 1 {
			return loader.Options{}, Usagef("--%s %d: want at least 1", c.name, c.v)
		}
	}
	if f.maxGap < 0 {
		return loader.Options{}, Usagef("--max-gap must not be negative")
	}
	return opt, nil
}

func (f *LoaderFlags) String() string {
	return fmt.Sprintf("mode=%s batch=%d", f.mode, f.batch)
}

// parseCache reads --cache: auto, 0 (off) or a size.
func parseCache(v string) (int64, error) {
	switch v {
	case "auto", "":
		return 0, nil
	case "0", "off":
		return loader.CacheOff, nil
	}
	var s SizeFlag
	if err := s.Set(v); err != nil {
		return 0, fmt.Errorf("--cache %q: want a size (e.g. 8GiB), auto or 0: %v", v, err)
	}
	return int64(s), nil
}
