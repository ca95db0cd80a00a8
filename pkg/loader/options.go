package loader

import (
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Options configure a Loader. The zero value of every field but Topology
// means its default; the CLI's flags share these defaults.
type Options struct {
	Topology  *topology.Topology // the job; required
	Mode      Mode               // zero value: DefaultMode
	Batch     int                // records per learner batch; default DefaultBatch
	Remainder assign.Remainder   // records that do not fill a round; default Pad (none dropped)
	Epochs    int                // epochs to deliver; default 1

	Shuffle     sampler.Shuffle // the order of every epoch; default None (the file's order)
	Seed        uint64          // seed of the shuffles
	ChunkBytes  int64           // Chunk: about the bytes of values per chunk (see sampler.Cut); default DefaultChunkBytes
	ChunkWindow int             // Chunk: chunks whose records are shuffled together; default DefaultChunkWindow
	Locality    Switch          // locality-aware assignment for Chunk and Global; default on

	// Cache is the bytes of shared memory each node keeps the samples it
	// loaded in, never evicting: 0 picks what fits in free shared memory and
	// node memory with headroom (capped at what the node owns), and none
	// for a single epoch in the file's order, which never reads a sample
	// twice; CacheOff turns it off.
	Cache int64
	// Resume continues the run a State describes: the records of its epoch
	// not yet delivered, then the epochs after it.
	Resume *State
	// Views lets learners read values through a read-only mapping of the
	// data file (the page cache), without a copy into shared memory, where
	// that is safe: blocks stored as is, no Direct, a snapshot that cannot
	// change. The page cache then takes the place of the node cache. By
	// default (ViewsAuto) they do for a single epoch, or without a cache,
	// on a local file system; for several epochs the node cache keeps the
	// data where no page-cache reclaim can take it, and on a network file
	// system the node readers read with O_DIRECT (see Direct).
	Views Views

	// Direct reads the data file with O_DIRECT, bypassing the page cache.
	// Without it, the node readers still read with O_DIRECT where the file
	// lies on a network or cluster file system (NFS, Lustre, GPFS, BeeGFS,
	// CephFS, SMB, FUSE), and where they fill node caches from a file that
	// is not in the page cache, if every node can, unless Views is on;
	// Loader.Direct says what they do.
	Direct   bool
	Stagger  int   // node readers on storage at once with STAG; default DefaultStagger
	Window   int64 // bytes a node reads per window with COAL; default DefaultWindow
	Prefetch int   // windows read ahead of the learners; default DefaultPrefetch
	MaxSpan  int64 // largest single read; default DefaultMaxSpan
	MaxGap   int64 // unneeded bytes read through to merge two reads; default DefaultMaxGap
	IODepth  int   // reads in flight per node reader; default DefaultIODepth

	Index index.LoadOptions // where the index sidecar may be kept

	// Dataset names the HDF5 dataset whose rows are the records (default
	// "data"); Labels the one delivered with them (default "label" when the
	// file has it; NoLabels for none). Both must be empty for LMDB.
	Dataset, Labels string
}

// NoLabels as Options.Labels delivers no labels.
const NoLabels = "none"

// Views says whether learners view the data file (Options.Views).
type Views int8

// Views values.
const (
	ViewsAuto Views = iota
	ViewsOn
	ViewsOff
)

var viewsNames = [...]string{"auto", "on", "off"}

func (v Views) String() string {
	if v < 0 || int(v) >= len(viewsNames) {
		return fmt.Sprintf("Views(%d)", int(v))
	}
	return viewsNames[v]
}

// ParseViews reads "auto", "on" or "off".
func ParseViews(s string) (Views, error) {
	for i, name := range viewsNames {
		if s == name {
			return Views(i), nil
		}
	}
	return 0, fmt.Errorf("%q: want auto, on or off", s)
}

// Switch is an option that is on unless turned off; the zero value is on.
type Switch int8

// Switch values.
const (
	On  Switch = 0
	Off Switch = 1
)

// CacheOff as Options.Cache turns the node cache off.
const CacheOff = -1

// Defaults, shared by the Go API and the command line.
const (
	DefaultBatch       = 64
	DefaultEpochs      = 1
	DefaultStagger     = 4
	DefaultWindow      = 64 << 20
	DefaultPrefetch    = 2
	DefaultMaxSpan     = 16 << 20
	DefaultMaxGap      = 1 << 20
	DefaultIODepth     = 8
	DefaultChunkBytes  = 64 << 20
	DefaultChunkWindow = 8
)

// alignment is the O_DIRECT and page alignment of shared-memory regions.
const alignment = 4096

// Limits on option values: beyond them a value is a mistake, and arithmetic
// on it could overflow.
const (
	maxEpochs   = 1 << 24
	maxPrefetch = 64
	maxIODepth  = 1024
	maxBytes    = 1 << 40 // window, spans, gaps, chunks
)

func (o *Options) setDefaults() error {
	if o.Topology == nil {
		return fmt.Errorf("loader: Options.Topology is required")
	}
	if o.Mode == (Mode{}) {
		o.Mode = DefaultMode
	}
	for _, d := range []struct {
		v *int
		d int
	}{{&o.Batch, DefaultBatch}, {&o.Epochs, DefaultEpochs}, {&o.Stagger, DefaultStagger}, {&o.Prefetch, DefaultPrefetch},
		{&o.IODepth, DefaultIODepth}, {&o.ChunkWindow, DefaultChunkWindow}} {
		if *d.v == 0 {
			*d.v = d.d
		}
	}
	for _, d := range []struct {
		v *int64
		d int64
	}{{&o.Window, DefaultWindow}, {&o.MaxSpan, DefaultMaxSpan}, {&o.MaxGap, DefaultMaxGap}, {&o.ChunkBytes, DefaultChunkBytes}} {
		if *d.v == 0 {
			*d.v = d.d
		}
	}
	return o.check()
}

// check range-checks every number, so no later arithmetic overflows.
func (o *Options) check() error {
	for _, c := range []struct {
		name     string
		v        int64
		min, max int64
	}{
		{"batch", int64(o.Batch), 1, math.MaxInt32},
		{"epochs", int64(o.Epochs), 1, maxEpochs},
		{"stagger", int64(o.Stagger), 1, math.MaxInt32},
		{"prefetch", int64(o.Prefetch), 1, maxPrefetch},
		{"io-depth", int64(o.IODepth), 1, maxIODepth},
		{"window", o.Window, 1, maxBytes},
		{"max-span", o.MaxSpan, 1, maxBytes},
		{"max-gap", o.MaxGap, 0, maxBytes},
		{"chunk", o.ChunkBytes, 1, maxBytes},
		{"chunk-window", int64(o.ChunkWindow), 1, math.MaxInt32},
		{"cache", o.Cache, CacheOff, maxBytes * 1024},
	} {
		if c.v < c.min || c.v > c.max {
			return fmt.Errorf("%w: --%s %d: want %d to %d", ErrBadOption, c.name, c.v, c.min, c.max)
		}
	}
	if o.Shuffle < sampler.None || o.Shuffle > sampler.Local {
		return fmt.Errorf("%w: shuffle %d", ErrBadOption, o.Shuffle)
	}
	if o.Remainder < assign.Pad || o.Remainder > assign.Keep {
		return fmt.Errorf("%w: remainder %d", ErrBadOption, o.Remainder)
	}
	if !o.Mode.PROV && (o.Shuffle != sampler.None || o.Resume != nil) {
		return fmt.Errorf("%w: --mode %v reads by cursor, in the database's order: it has no --shuffle and no --resume (use the default mode)",
			ErrBadOption, o.Mode)
	}
	return nil
}

// settings lists every option that all ranks must agree on, by its
// command-line name, for the agreement at Open.
func (o *Options) settings() [][2]string {
	s := [][2]string{
		{"mode", o.Mode.String()}, {"batch", fmt.Sprint(o.Batch)}, {"remainder", o.Remainder.String()},
		{"epochs", fmt.Sprint(o.Epochs)}, {"shuffle", o.Shuffle.String()}, {"seed", fmt.Sprint(o.Seed)},
		{"chunk", fmt.Sprint(o.ChunkBytes)}, {"chunk-window", fmt.Sprint(o.ChunkWindow)},
		{"locality", o.Locality.String()}, {"cache", fmt.Sprint(o.Cache)}, {"views", o.Views.String()}, {"direct", fmt.Sprint(o.Direct)},
		{"stagger", fmt.Sprint(o.Stagger)}, {"window", fmt.Sprint(o.Window)}, {"prefetch", fmt.Sprint(o.Prefetch)},
		{"max-span", fmt.Sprint(o.MaxSpan)}, {"max-gap", fmt.Sprint(o.MaxGap)}, {"io-depth", fmt.Sprint(o.IODepth)},
		{"dataset", o.Dataset}, {"labels", o.Labels},
	}
	resume := "none"
	if o.Resume != nil {
		resume = o.Resume.fingerprint()
	}
	return append(s, [2]string{"resume", resume})
}

func (s Switch) String() string {
	if s == Off {
		return "off"
	}
	return "on"
}

// ParseSwitch reads "on" or "off".
func ParseSwitch(v string) (Switch, error) {
	switch v {
	case "on":
		return On, nil
	case "off":
		return Off, nil
	}
	return 0, fmt.Errorf("%q: want on or off", v)
}
