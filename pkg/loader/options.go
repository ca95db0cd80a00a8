package loader

import (
	"fmt"

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

	// Prep decodes and augments every record of a batch into one tensor
	// (internal/prep's spec, e.g. "decode,random_resized_crop:224,flip");
	// "" delivers raw records. See Batch.Images and prepstage.go.
	Prep string
	// PrepThreads prep each learner's batches; 0 shares the node's cores
	// among its learners (at least 1 each).
	PrepThreads int
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

// setDefaults gives every option the caller left at its zero value the
// registry's default, then checks them.
func (o *Options) setDefaults() error {
	if o.Topology == nil {
		return fmt.Errorf("loader: Options.Topology is required")
	}
	for _, s := range registry {
		if s.Default != "" && s.zero(o) {
			if err := s.set(o, s.Default); err != nil {
				panic(fmt.Sprintf("loader: option %s: default %q: %v", s.Name, s.Default, err)) // a test checks every default
			}
		}
	}
	return o.check()
}

// check range-checks every number, so no later arithmetic overflows.
func (o *Options) check() error {
	for _, s := range registry {
		if s.num == nil {
			continue
		}
		if v := s.num(o); v < s.Min || v > s.Max {
			return fmt.Errorf("%w: --%s %d: want %d to %d", ErrBadOption, s.Name, v, s.Min, s.Max)
		}
	}
	if o.Shuffle < sampler.None || o.Shuffle > sampler.File {
		return fmt.Errorf("%w: shuffle %d", ErrBadOption, o.Shuffle)
	}
	if o.Remainder < assign.Pad || o.Remainder > assign.Keep {
		return fmt.Errorf("%w: remainder %d", ErrBadOption, o.Remainder)
	}
	if !o.Mode.PROV && (o.Shuffle != sampler.None || o.Resume != nil) {
		return fmt.Errorf("%w: --mode %v reads by cursor, in the database's key order: it has no other --shuffle and no --resume (use the default mode)",
			ErrBadOption, o.Mode)
	}
	return o.checkPrep()
}

// settings lists every option that all ranks must agree on, by its
// command-line name, for the agreement at Open.
func (o *Options) settings() [][2]string {
	var out [][2]string
	for _, s := range registry {
		if !s.MustAgree {
			continue
		}
		text := s.show
		if s.agree != nil {
			text = s.agree
		}
		out = append(out, [2]string{s.Name, text(o)})
	}
	return out
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
