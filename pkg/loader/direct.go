package loader

import (
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// choosesDirect reports whether the node readers pick direct I/O
// themselves: where no option says how to read the data file (Direct off,
// Views auto). They pick it where it pays:
//
//   - on a network or cluster file system, whose clients would cut the
//     node reader's large reads into readahead-sized requests and keep a
//     second copy in their page cache;
//   - when the node readers fill node caches (several epochs, a cache not
//     turned off) from a file that is not in this node's page cache: the
//     cache keeps every byte it reads, so a copy in the page cache only
//     doubles the memory the first epoch fills, and the node reader's copy
//     touches every page of the cache. A file already in the page cache is
//     read from it.
//
// Direct I/O was the faster in both (docs/decisions/0010-direct-io-choice.md).
//
// The node readers agree (in agreeOptions), since it changes how every
// node aligns its reads and so the windows they must cut alike: direct
// only if every node wants it and it opens on every node.
func choosesDirect(opt Options) bool {
	return !opt.Direct && opt.Views == ViewsAuto && opt.Mode.PROV
}

// openDirect opens the data file of path with direct I/O where this node
// wants it and it opens; else nil. It runs before rank 0 has described
// the dataset: a path that names none opens nothing here and fails there.
func openDirect(t *topology.Topology, path string, opt Options) *reader.SpanReader {
	dataPath, err := lmdbfmt.DataPath(path)
	if err != nil || !wantsDirect(t, dataPath, opt) {
		return nil
	}
	rd, err := reader.Open(dataPath, true)
	if err != nil {
		return nil
	}
	return rd
}

// wantsDirect reports whether this node would read the data file with
// direct I/O (see choosesDirect).
func wantsDirect(t *topology.Topology, dataPath string, opt Options) bool {
	if reader.Networked(dataPath) != "" {
		return true
	}
	fillsCache := opt.Epochs > 1 && opt.Cache != CacheOff // else learners view the page cache
	return fillsCache && !shareCached(dataPath, t.Node, t.Nodes)
}

// shareCached reports whether most of node's share of the file, the
// node-th of nodes equal parts (about what it reads first), is in the page
// cache. A file it cannot map counts as not cached.
func shareCached(path string, node, nodes int) bool {
	v, err := openView(path)
	if err != nil {
		return false
	}
	defer v.Close()
	size := int64(len(v.mem))
	return v.mostlyResident(size*int64(node)/int64(nodes), size*int64(node+1)/int64(nodes), cacheSamples, 1<<20)
}

// cacheSamples bounds the stretches shareCached looks at: the page list of
// a large share would take megabytes.
const cacheSamples = 64

// mostlyResident reports whether most pages of [from, to) are in the page
// cache, judged from at most samples stretches of stretch bytes spread
// evenly over it.
func (v *fileView) mostlyResident(from, to int64, samples int, stretch int64) bool {
	if to-from <= int64(samples)*stretch {
		in, all := v.residentPages(from, to-from)
		return 2*in > all
	}
	in, all := 0, 0
	for i := range int64(samples) {
		a, b := v.residentPages(from+(to-from-stretch)*i/int64(samples-1), stretch)
		in, all = in+a, all+b
	}
	return 2*in > all
}
