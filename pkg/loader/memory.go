package loader

import (
	"fmt"
	"runtime"

	"github.com/lmdbio/lmdbio/internal/meminfo"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// memory sizes the windows (sizeArena) and this node's cache
// (cacheCapacity).
func (ix *indexProducer) memory() (capacity, spare int64, err error) {
	if err := ix.sizeArena(); err != nil {
		return 0, 0, err
	}
	return ix.cacheCapacity(ix.readers)
}

// sizeArena sets the bytes per window: the Window option, or more when a
// single round of the first epoch needs more (a window holds at least one
// round), with a quarter to spare for later epochs' rounds.
func (ix *indexProducer) sizeArena() error {
	p := ix.plan
	ep, from, err := p.epoch(p.firstEpoch())
	if err != nil {
		return err
	}
	p.first.ep, p.first.from = ep, from
	most := p.layout.MaxRoundNeed(ep, from)
	ix.slot = max(ix.opt.Window, most+most/4+int64(ctlBytes*p.layout.Nodes))
	return nil
}

// cacheCapacity decides the bytes of this node's cache: none with
// CacheOff; the asked size, if there is room for it; by default what the
// node owns, capped at its part of the shared memory and node memory free
// with headroom for the learners, and none when no record could come from
// it (see cacheServes) or learners view the file (the page cache keeps what
// was read). An asked size is checked even where no cache is kept: a size
// the node cannot hold is a mistake in the job script either way. spare is
// what the cache leaves of that budget, for the early exchange. readers is
// the number of node readers on this host, who share its memory.
func (ix *indexProducer) cacheCapacity(readers int) (capacity, spare int64, err error) {
	if ix.opt.Cache == CacheOff {
		return 0, 0, nil
	}
	kept := ix.view == nil && (ix.opt.Cache > 0 || cacheServes(ix.opt.Shuffle, ix.opt.Epochs-ix.plan.firstEpoch()))
	if !kept && ix.opt.Cache == 0 {
		return 0, 0, nil
	}
	room, why, err := cacheRoom(readers, ix.arenaBytes())
	if err != nil {
		return 0, 0, err
	}
	if ix.opt.Cache > 0 {
		if ix.opt.Cache > room {
			return 0, 0, fmt.Errorf("%w: --cache %s: %s", ErrBadOption, shm.FormatBytes(ix.opt.Cache), why)
		}
		room = ix.opt.Cache
	}
	if !kept {
		return 0, 0, nil
	}
	capacity = min(ix.plan.cacheNeed(), room)
	return capacity, room - capacity, nil
}

// cacheServes reports whether a node cache can deliver a record of a run
// with epochsLeft epochs to go in order shuffle: an epoch after the one
// that fills it reads from it, and so does a shuffled epoch, whose windows
// draw on blocks that earlier windows loaded. A single epoch in the file's
// order delivers every block's records in the windows that read it, and
// never again: a cache would only take a fresh page of shared memory for
// every byte read (allocated and zeroed by the kernel before the read, and
// faulted into the learners that touch it), where the arena's windows
// reuse theirs: slower, and a later first batch
// (docs/decisions/0011-no-cache-for-a-single-ordered-epoch.md).
func cacheServes(shuffle sampler.Shuffle, epochsLeft int) bool {
	return epochsLeft > 1 || shuffle.Random()
}

// cacheRoom is the memory one of readers node readers on this host may keep
// as cache, and a sentence saying how it was found.
func cacheRoom(readers int, arena int64) (int64, string, error) {
	free, huge, err := shm.Free()
	if err != nil {
		return 0, "", err
	}
	mem, err := meminfo.Read()
	if err != nil {
		return 0, "", err
	}
	keep := learnersKeep(mem["MemTotal"])
	from := fmt.Sprintf("shared memory free %s, node memory available %s less %s kept for the learners",
		formatFree(free), shm.FormatBytes(mem["MemAvailable"]), shm.FormatBytes(keep))
	usable := min(free, mem["MemAvailable"]-keep)
	if huge { // the pool's pages are set aside: MemAvailable leaves them out
		from, usable = "huge pages free "+shm.FormatBytes(free), free
	}
	usable -= int64(readers) * arena
	room := max(0, usable/int64(readers))
	why := fmt.Sprintf("each of the %d node readers on this host has %s for its cache (%s, less the readers' arenas): lower --cache, or --cache 0 to turn the cache off",
		readers, shm.FormatBytes(room), from)
	return room, why, nil
}

// learnersKeep is the node memory the caches leave to the learners.
func learnersKeep(memTotal int64) int64 { return max(2<<30, memTotal/4) }

// pageTablesFit reports whether learners learners of the host may each map
// a cache of cache bytes ahead (see mapAhead): their page tables, 8 bytes
// per 4 KiB page of it each, may take at most an eighth of the memory kept
// for the learners. Mapped ahead they take it at once; faulted in on demand
// they grow only as the epochs meet the pages.
func pageTablesFit(learners int, cache, memTotal int64) bool {
	return int64(learners)*(cache/512) <= learnersKeep(memTotal)/8
}

// mapsAhead reports whether this node's learners should map its cache
// ahead: an order that changes every epoch, an epoch after the one that
// fills it, and room for the page tables of all the learners on the host.
func (ix *indexProducer) mapsAhead() bool {
	p := ix.plan
	if ix.cache.seg == nil || !ix.opt.Shuffle.Random() || ix.opt.Epochs-p.firstEpoch() < 2 {
		return false
	}
	mem, err := meminfo.Read()
	return err == nil && pageTablesFit(ix.learners*ix.readers, ix.cache.layout.Bytes, mem["MemTotal"])
}

func formatFree(n int64) string {
	if n == 1<<63-1 {
		return "unlimited"
	}
	return shm.FormatBytes(n)
}

func runtimeCPUs() int { return runtime.GOMAXPROCS(0) }
