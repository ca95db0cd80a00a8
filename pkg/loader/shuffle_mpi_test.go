package loader_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// The shuffle tests read through node splits of the world made in the test
// (topology.Virtual), so one run of the binary compares 1 node x 4
// learners, 2 x 2 and 4 x 1.

// splits returns the node sizes that divide the world, largest node first.
func splits() []int {
	var out []int
	for per := job.Size; per >= 1; per-- {
		if job.Size%per == 0 {
			out = append(out, per)
		}
	}
	return out
}

// outcome is what a read of some epochs gave, agreed over all ranks.
type outcome struct {
	orders  []string            // per epoch: the order hash
	digests []uint64            // per epoch: the digest sum
	stats   []loader.EpochStats // per epoch: summed over ranks
	state   loader.State        // where it stopped
	records [][]int64           // per epoch: the records this rank got
	cache   int64               // CacheBytes of this rank's loader
}

// readRun opens fx on the virtual topology of perNode ranks per node,
// reads every epoch (or stop batches in all, then closes), checks the bytes
// against liblmdb's, and checks over all ranks that no record came twice
// in an epoch and, for whole epochs, that none was missed. Collective.
func readRun(t *testing.T, fx *fixture, opt loader.Options, perNode, stop int) (*outcome, bool) {
	t.Helper()
	topo := virtual(t, perNode)
	defer watchdog(t.Name(), readTimeout+readTimeout)()
	opt.Topology, opt.Index = topo, index.LoadOptions{NoCache: true}
	ld, err := loader.Open(fx.Dir, opt)
	if err != nil {
		t.Errorf("Open: %v", err)
	}
	if !agree(t, err == nil, "Open") {
		return nil, false
	}
	d := &delivery{}
	r := &outcome{cache: ld.CacheBytes()}
	first := ld.Epoch()
	rounds := map[int][]int64{}
	var digest uint64
	finish := func(epoch int, whole bool) {
		r.orders = append(r.orders, orderOf(rounds))
		r.digests = append(r.digests, sumAll(digest))
		r.stats = append(r.stats, sumStats(ld.EpochStats(epoch)))
		var mine []int64
		for _, recs := range rounds {
			mine = append(mine, recs...)
		}
		r.records = append(r.records, mine)
		checkEpoch(t, fx, mine, whole)
		rounds, digest = map[int][]int64{}, 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	read := 0
	for e := first; e < opt.Epochs && (stop == 0 || read < stop); {
		start := ld.State().GlobalBatches
		b, err := ld.Next(ctx)
		if errors.Is(err, io.EOF) {
			resumed := opt.Resume != nil && e == opt.Resume.Epoch && opt.Resume.GlobalBatches > 0
			finish(e, !resumed)
			e++
			continue
		}
		if err != nil {
			d.problem("epoch %d: Next: %v", e, err)
			break
		}
		d.check(b, fx, opt.Batch, false, fmt.Sprintf("epoch %d round %d", e, start))
		for i, rec := range b.Records {
			rounds[start] = append(rounds[start], int64(rec))
			digest += recordSum(b.Keys[i], b.Values[i])
		}
		read++
		if stop > 0 && read == stop {
			r.state = ld.State()
			finish(e, false)
		}
	}
	if err := ld.Close(); err != nil {
		d.problem("Close: %v", err)
	}
	for _, p := range d.problems {
		t.Error(p)
	}
	ok := agree(t, len(d.problems) == 0, "reading")
	checkNoSegments(t)
	return r, ok
}

// virtuals are the node splits the tests made, by ranks per node: made once
// and kept for the whole test binary, as a job keeps its one topology.
var virtuals = map[int]*topology.Topology{}

// virtual returns the topology of perNode ranks per node. Collective.
func virtual(t *testing.T, perNode int) *topology.Topology {
	t.Helper()
	if topo, ok := virtuals[perNode]; ok {
		return topo
	}
	topo, err := topology.Virtual(job.World, perNode)
	if !agree(t, err == nil, "topology") {
		t.Fatalf("topology of %d per node: %v", perNode, err)
	}
	virtuals[perNode] = topo
	return topo
}

// recordSum is a record's term of the digest.
func recordSum(key, value []byte) uint64 {
	h := sha256.New()
	h.Write(key)
	h.Write(value)
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// sumAll adds v over all ranks, modulo 2^64.
func sumAll(v uint64) uint64 {
	var total uint64
	for _, x := range allgatherInts([]int64{int64(v)}) {
		total += uint64(x[0])
	}
	return total
}

func sumStats(s loader.EpochStats) loader.EpochStats {
	var t loader.EpochStats
	for _, x := range allgatherInts([]int64{s.StorageBytes, s.ExchangeBytes, s.CacheHits}) {
		t.StorageBytes += x[0]
		t.ExchangeBytes += x[1]
		t.CacheHits += x[2]
	}
	return t
}

// orderOf hashes an epoch's global batches, as lmdbio digest --json does:
// every round's records over all ranks, sorted, round after round.
func orderOf(rounds map[int][]int64) string {
	var mine []int64
	for round, recs := range rounds {
		mine = append(mine, int64(round), int64(len(recs)))
		mine = append(mine, recs...)
	}
	all := map[int64][]int64{}
	for _, v := range allgatherInts(mine) {
		for len(v) >= 2 {
			n := v[1]
			all[v[0]] = append(all[v[0]], v[2:2+n]...)
			v = v[2+n:]
		}
	}
	keys := make([]int64, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		recs := all[k]
		slices.Sort(recs)
		for _, r := range recs {
			h.Write(binary.LittleEndian.AppendUint64(nil, uint64(r)))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

// checkEpoch checks over all ranks that no record came twice and, for a
// whole epoch, that every record came.
func checkEpoch(t *testing.T, fx *fixture, mine []int64, whole bool) {
	t.Helper()
	count := make([]int, fx.Records())
	for _, recs := range allgatherInts(mine) {
		for _, r := range recs {
			count[r]++
		}
	}
	var missing, twice []int
	for r, c := range count {
		if c == 0 {
			missing = append(missing, r)
		}
		if c > 1 {
			twice = append(twice, r)
		}
	}
	if len(twice) > 0 || whole && len(missing) > 0 {
		t.Errorf("records more than once: %s; missing: %s (whole epoch: %v)", head(twice), head(missing), whole)
	}
}

var shuffles = []sampler.Shuffle{sampler.None, sampler.Chunk, sampler.Global, sampler.Local}

// TestMPIShuffles reads two epochs of every shuffle on every node split:
// every record exactly once per epoch with the right bytes; the same digest
// as the file's order; the order of chunk and global changes between epochs
// and seeds but not between node splits; with the cache, the second epoch
// reads nothing from storage; without it, it does; locality moves fewer
// records between nodes.
func TestMPIShuffles(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	// Views off: these runs test the node cache in shared memory; TestMPIViews
	// tests learners viewing the file.
	base := loader.Options{Batch: 5, Remainder: assign.Keep, Epochs: 2, Seed: 11, ChunkBytes: 64 << 10, ChunkWindow: 3,
		Window: 256 << 10, Views: loader.ViewsOff}
	var want uint64
	for _, sh := range shuffles {
		t.Run(sh.String(), func(t *testing.T) {
			orders := map[string]string{}
			for _, per := range splits() {
				for _, cache := range []int64{0, loader.CacheOff} {
					opt := base
					opt.Shuffle, opt.Cache = sh, cache
					r, ok := readRun(t, fx, opt, per, 0)
					if !ok {
						return
					}
					what := fmt.Sprintf("%d per node, cache %d", per, cache)
					if want == 0 {
						want = r.digests[0]
					}
					for e, d := range r.digests {
						if d != want {
							t.Errorf("%s: epoch %d digest %016x, the file's order gives %016x", what, e, d, want)
						}
					}
					if sh.Random() && r.orders[0] == r.orders[1] {
						t.Errorf("%s: epochs 0 and 1 have the same order %s", what, r.orders[0])
					}
					if sh.WorldIndependent() {
						key := fmt.Sprint(r.orders)
						if prev, seen := orders["any"]; seen && prev != key {
							t.Errorf("%s: orders %s differ from another split's %s", what, key, prev)
						}
						orders["any"] = key
					}
					if r.stats[0].StorageBytes == 0 {
						t.Errorf("%s: epoch 0 read nothing from storage", what)
					}
					switch {
					case cache == 0 && r.stats[1].StorageBytes != 0:
						t.Errorf("%s: epoch 1 read %d bytes from storage though the cache holds the dataset", what, r.stats[1].StorageBytes)
					case cache == loader.CacheOff && r.stats[1].StorageBytes == 0:
						t.Errorf("%s: epoch 1 read nothing from storage without a cache", what)
					case cache == 0 && r.stats[1].CacheHits == 0:
						t.Errorf("%s: epoch 1 had no cache hits", what)
					}
					if per == job.Size && r.stats[0].ExchangeBytes != 0 {
						t.Errorf("%s: one node exchanged %d bytes", what, r.stats[0].ExchangeBytes)
					}
				}
			}
		})
	}
	t.Run("seed", func(t *testing.T) {
		opt := base
		opt.Shuffle, opt.Epochs = sampler.Global, 1
		a, ok := readRun(t, fx, opt, job.Size, 0)
		opt.Seed++
		b, ok2 := readRun(t, fx, opt, job.Size, 0)
		if ok && ok2 && a.orders[0] == b.orders[0] {
			t.Errorf("seeds %d and %d give the same order", opt.Seed-1, opt.Seed)
		}
	})
}

// TestMPIEarlyExchange: the records that cross between nodes in the epochs
// after the fill go during the fill instead: all of them when a node may
// keep as much as its cache (with locality, a node receives far less than
// it holds), a part when it may keep a 40th of it without locality (a node
// then receives at least half of what its learners take). The batches,
// orders and digests do not change, only which epoch the bytes cross in,
// and a record a node gets for both later epochs crosses once.
func TestMPIEarlyExchange(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	for _, per := range splits() {
		if per == job.Size {
			continue
		}
		for _, sh := range []sampler.Shuffle{sampler.Chunk, sampler.Global} {
			for _, locality := range []loader.Switch{loader.On, loader.Off} {
				opt := loader.Options{Batch: 5, Remainder: assign.Keep, Epochs: 3, Shuffle: sh, Seed: 7, Locality: locality,
					ChunkBytes: 64 << 10, ChunkWindow: 3, Window: 256 << 10, Views: loader.ViewsOff}
				what := fmt.Sprintf("%d per node, %v, locality %v", per, sh, locality)
				restore := loader.SetEarlyShare(0)
				off, ok := readRun(t, fx, opt, per, 0)
				restore()
				if !ok {
					return
				}
				shares := map[loader.Switch][]int64{loader.On: {1, 4}, loader.Off: {4, 40}}[locality]
				for _, share := range shares {
					restore := loader.SetEarlyShare(share)
					on, ok := readRun(t, fx, opt, per, 0)
					restore()
					if !ok {
						return
					}
					checkEarly(t, fmt.Sprintf("%s, share 1/%d", what, share), off, on, map[int64]string{1: "all", 40: "part"}[share])
				}
			}
		}
	}
}

// checkEarly compares a run with the early exchange to one without; want
// says how much of the epochs after the fill should go early: "all" (of
// the first of them; the later ones get what room is left), "part", or ""
// for any.
func checkEarly(t *testing.T, what string, off, on *outcome, want string) {
	t.Helper()
	if !slices.Equal(off.orders, on.orders) || !slices.Equal(off.digests, on.digests) {
		t.Errorf("%s: orders %v digests %x, without the early exchange %v %x", what, on.orders, on.digests, off.orders, off.digests)
	}
	var onTotal, offTotal, late, later int64
	for e := range on.stats {
		x, y := on.stats[e].ExchangeBytes, off.stats[e].ExchangeBytes
		onTotal, offTotal = onTotal+x, offTotal+y
		if e > 0 {
			late, later = late+x, later+y
			if x > y {
				t.Errorf("%s: epoch %d exchanged %d bytes, %d without the early exchange", what, e, x, y)
			}
		}
	}
	bytes := func(o *outcome) []int64 {
		var b []int64
		for _, st := range o.stats {
			b = append(b, st.ExchangeBytes)
		}
		return b
	}
	switch {
	case onTotal > offTotal:
		t.Errorf("%s: exchanged %v bytes by epoch, more than %v without the early exchange", what, bytes(on), bytes(off))
	case later > 0 && late >= later:
		t.Errorf("%s: nothing of the later epochs' %d bytes crossed early", what, later)
	case want == "all" && on.stats[1].ExchangeBytes != 0: // the epoch after the fill takes room first
		t.Errorf("%s: %d of epoch 1's %d bytes crossed late, with room for all", what, on.stats[1].ExchangeBytes, off.stats[1].ExchangeBytes)
	case want == "part" && late == 0:
		t.Errorf("%s: all of the later epochs' %d bytes crossed early, with room for a part", what, later)
	}
	for e := range on.stats {
		if on.stats[e].StorageBytes != off.stats[e].StorageBytes || on.stats[e].CacheHits != off.stats[e].CacheHits {
			t.Errorf("%s: epoch %d read %d bytes with %d cache hits, without the early exchange %d with %d", what, e,
				on.stats[e].StorageBytes, on.stats[e].CacheHits, off.stats[e].StorageBytes, off.stats[e].CacheHits)
		}
	}
}

// TestMPILocality: on more than one node, locality-aware assignment moves
// fewer bytes between nodes than the plain one, same seed, same batches.
func TestMPILocality(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	for _, per := range splits() {
		if per == job.Size {
			continue
		}
		opt := loader.Options{Batch: 5, Remainder: assign.Keep, Epochs: 1, Shuffle: sampler.Global, Seed: 3}
		on, ok := readRun(t, fx, opt, per, 0)
		opt.Locality = loader.Off
		off, ok2 := readRun(t, fx, opt, per, 0)
		if !ok || !ok2 {
			return
		}
		if on.orders[0] != off.orders[0] {
			t.Errorf("%d per node: locality changed the order: %s vs %s", per, on.orders[0], off.orders[0])
		}
		if on.stats[0].ExchangeBytes >= off.stats[0].ExchangeBytes {
			t.Errorf("%d per node: locality on exchanged %d bytes, off %d", per, on.stats[0].ExchangeBytes, off.stats[0].ExchangeBytes)
		}
	}
}

// TestMPISmallCache: a cache too small for the dataset still delivers every
// record exactly once, and later epochs read the rest from storage.
func TestMPISmallCache(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	for _, sh := range []sampler.Shuffle{sampler.None, sampler.Chunk, sampler.Global} {
		opt := loader.Options{Batch: 4, Remainder: assign.Keep, Epochs: 2, Shuffle: sh, Seed: 5, ChunkBytes: 64 << 10,
			Cache: 256 << 10, Window: 128 << 10, Views: loader.ViewsOff}
		r, ok := readRun(t, fx, opt, max(1, job.Size/2), 0)
		if !ok {
			return
		}
		if r.stats[1].StorageBytes == 0 || r.stats[1].CacheHits == 0 {
			t.Errorf("%v: epoch 1 read %d bytes from storage with %d cache hits: want both", sh, r.stats[1].StorageBytes, r.stats[1].CacheHits)
		}
	}
}

// TestMPICacheWhereItServes: by default a node keeps a cache only where a
// record can come from it, a later epoch or a shuffled one; a single epoch
// in the file's order reads through the arena alone, delivers every record
// once and reads no more from storage than with a cache. A cache asked for
// by size is kept.
func TestMPICacheWhereItServes(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	base := loader.Options{Batch: 4, Remainder: assign.Keep, Seed: 5, ChunkBytes: 64 << 10, Window: 128 << 10,
		Views: loader.ViewsOff}
	cases := []struct {
		shuffle sampler.Shuffle
		epochs  int
		cache   int64
		want    bool // a cache
	}{
		{sampler.None, 1, 0, false},
		{sampler.None, 2, 0, true},
		{sampler.Global, 1, 0, true},
		{sampler.Chunk, 1, 0, true},
		{sampler.Local, 1, 0, true},
		{sampler.None, 1, 16 << 20, true},
	}
	for _, per := range splits() {
		storage := map[int64]int64{} // epoch 0's storage bytes of the file's order, by cache option
		for _, c := range cases {
			opt := base
			opt.Shuffle, opt.Epochs, opt.Cache = c.shuffle, c.epochs, c.cache
			what := fmt.Sprintf("%d per node, %v, %d epochs, cache %d", per, c.shuffle, c.epochs, c.cache)
			r, ok := readRun(t, fx, opt, per, 0)
			if !ok {
				return
			}
			if got := r.cache > 0; got != c.want {
				t.Errorf("%s: rank %d has a cache of %d bytes, want one: %v", what, job.Rank, r.cache, c.want)
			}
			if c.shuffle == sampler.None && c.epochs == 1 {
				storage[c.cache] = r.stats[0].StorageBytes
			}
		}
		if without, with := storage[0], storage[16<<20]; without == 0 || without > with {
			t.Errorf("%d per node: one epoch in the file's order read %d bytes from storage without a cache, %d with one", per, without, with)
		}
	}
}

// TestMPIResume stops a run after a few global batches, saves the state
// and continues it on another node split: the two parts together hold every
// record of the epoch exactly once, and their digests add up to the whole
// epoch's.
func TestMPIResume(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	sp := splits()
	for _, sh := range shuffles {
		t.Run(sh.String(), func(t *testing.T) {
			opt := loader.Options{Batch: 6, Remainder: assign.Keep, Epochs: 2, Shuffle: sh, Seed: 9, ChunkBytes: 64 << 10}
			whole, ok := readRun(t, fx, opt, sp[0], 0)
			if !ok {
				return
			}
			part, ok := readRun(t, fx, opt, sp[0], 7)
			if !ok {
				return
			}
			if part.state.Epoch != 0 || part.state.GlobalBatches != 7 {
				t.Fatalf("state after 7 batches: %+v", part.state)
			}
			checkResumePastEpoch(t, fx, opt, part.state, sp[len(sp)-1])
			opt.Resume = &part.state
			rest, ok := readRun(t, fx, opt, sp[len(sp)-1], 0)
			if !ok {
				return
			}
			if got := part.digests[0] + rest.digests[0]; got != whole.digests[0] {
				t.Errorf("digests of the parts add up to %016x, the whole epoch's is %016x", got, whole.digests[0])
			}
			if len(rest.digests) != 2 || rest.digests[1] != whole.digests[1] {
				t.Errorf("the epoch after the resumed one: %x, want %x", rest.digests, whole.digests)
			}
			checkEpoch(t, fx, append(slices.Clone(part.records[0]), rest.records[0]...), true)
			if sh.WorldIndependent() && rest.orders[1] != whole.orders[1] {
				t.Errorf("the epoch after the resumed one has order %s, the whole run's %s", rest.orders[1], whole.orders[1])
			}
		})
	}
}

// checkResumePastEpoch: a state that says more global batches were done
// than its epoch has is damaged or another run's: Open refuses it on every
// rank, with a bad-input error, instead of delivering an empty epoch.
func checkResumePastEpoch(t *testing.T, fx *fixture, opt loader.Options, st loader.State, perNode int) {
	t.Helper()
	st.GlobalBatches = 1 << 20
	opt.Resume = &st
	opt.Topology, opt.Index = virtual(t, perNode), index.LoadOptions{NoCache: true}
	defer watchdog(t.Name(), readTimeout)()
	ld, err := loader.Open(fx.Dir, opt)
	if ld != nil {
		_ = ld.Close()
	}
	ok := err != nil && loader.IsBadInput(err) && strings.Contains(err.Error(), "global batches of epoch 0 were delivered")
	if !ok {
		t.Errorf("Open with a state past the end of its epoch: %v, want a bad-input error saying so", err)
	}
	agree(t, ok, "resume past the epoch")
}

// evict drops the data file's pages from the page cache (posix_fadvise
// DONTNEED), so the next read comes from storage. Collective.
func evict(t *testing.T, fx *fixture) {
	t.Helper()
	err := lmdbtest.Evict(filepath.Join(fx.Dir, "data.mdb"))
	if !agree(t, err == nil, "evicting the page cache") {
		t.Fatal(err)
	}
}

// TestMPIViews: learners that view the file get the right bytes with every
// shuffle, every record brought by the node readers or found in the page
// cache.
func TestMPIViews(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	for _, sh := range shuffles {
		evict(t, fx)
		opt := loader.Options{Batch: 5, Remainder: assign.Keep, Epochs: 2, Shuffle: sh, Seed: 4, ChunkBytes: 64 << 10,
			Views: loader.ViewsOn}
		r, ok := readRun(t, fx, opt, max(1, job.Size/2), 0)
		if !ok {
			return
		}
		// Every record comes from a read or from the page cache. (Eviction
		// is a hint: mapped pages and the disk's readahead keep some
		// resident, so how many of each is not checked.)
		for e, st := range r.stats {
			if st.StorageBytes == 0 && st.CacheHits == 0 {
				t.Errorf("%v: epoch %d counted neither reads nor page cache hits", sh, e)
			}
		}
	}
}

// TestMPITinyEpochs: a dataset smaller than one global batch, with a
// shuffle that exchanges records: the learners of some nodes get all their
// (short or empty) batches long before the others, and close; their node
// readers must still do their part of the exchanges the others need.
func TestMPITinyEpochs(t *testing.T) {
	fx := makeFixture(t, "tiny", lmdbtest.Gen{Seed: 3, Records: 40, KeyLen: 16, SmallMax: 300, BigEvery: 7, BigMin: 5000, BigMax: 6000, Txns: 2})
	for _, per := range splits() {
		opt := loader.Options{Batch: 16, Remainder: assign.Keep, Epochs: 4, Shuffle: sampler.Global, Seed: 1}
		readRun(t, fx, opt, per, 0)
	}
}
