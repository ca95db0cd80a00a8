package loader

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Options configure a Loader. The zero value of every field but Topology
// means its default.
type Options struct {
	Topology  *topology.Topology // the job; required
	Mode      Mode               // zero value: DefaultMode
	Batch     int                // records per batch; default 64
	Remainder assign.Remainder   // what happens to records that do not fill a round
	Epochs    int                // epochs to deliver; default 1

	Direct   bool  // read with O_DIRECT (bypasses the page cache)
	Stagger  int   // node readers on storage at once with STAG; default 4
	Window   int64 // bytes a node reads per window with COAL; default 64 MiB
	Prefetch int   // windows read ahead of the learners; default 2
	MaxSpan  int64 // largest single read; default 16 MiB
	MaxGap   int64 // unneeded bytes read through to merge two reads; default 1 MiB
	IODepth  int   // reads in flight per node reader; default 4

	Index index.LoadOptions // where the index sidecar may be kept
}

// The defaults of Options, which the command line shares.
const (
	DefaultBatch    = 64
	DefaultEpochs   = 1
	DefaultStagger  = 4
	DefaultWindow   = 64 << 20
	DefaultPrefetch = 2
	DefaultMaxSpan  = 16 << 20
	DefaultMaxGap   = 1 << 20
	DefaultIODepth  = 4
)

const alignment = 4096 // O_DIRECT and page alignment of arena regions

func (o *Options) setDefaults() error {
	if o.Topology == nil {
		return fmt.Errorf("loader: Options.Topology is required")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def64 := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Mode == (Mode{}) {
		o.Mode = DefaultMode
	}
	def(&o.Batch, DefaultBatch)
	def(&o.Epochs, DefaultEpochs)
	def(&o.Stagger, DefaultStagger)
	def(&o.Prefetch, DefaultPrefetch)
	def(&o.IODepth, DefaultIODepth)
	def64(&o.Window, DefaultWindow)
	def64(&o.MaxSpan, DefaultMaxSpan)
	def64(&o.MaxGap, DefaultMaxGap)
	for _, c := range []struct {
		name string
		v    int64
	}{{"batch", int64(o.Batch)}, {"epochs", int64(o.Epochs)}, {"stagger", int64(o.Stagger)},
		{"prefetch", int64(o.Prefetch)}, {"io-depth", int64(o.IODepth)}, {"window", o.Window},
		{"max-span", o.MaxSpan}, {"max-gap", o.MaxGap + 1}} {
		if c.v < 1 {
			return fmt.Errorf("%w: --%s must be at least 1", ErrBadOption, c.name)
		}
	}
	return nil
}
