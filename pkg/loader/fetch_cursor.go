package loader

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/lmdbwalk"
	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/reader"
)

// cursorFetcher is the node reader before PROV: it finds its records by
// walking liblmdb's cursor from the start of the database. With LMM alone
// it copies keys and values out of its mmap (page faults do the I/O); with
// DIO it takes only the values' places from the cursor and preads each
// batch's byte range.
type cursorFetcher struct {
	walk   *lmdbwalk.Walker
	rd     *reader.SpanReader
	opt    Options
	arena  *arena
	buf    []byte
	copied int64 // bytes copied out of the mmap (LMM without DIO)
}

func openCursorFetcher(ds *dataset, opt Options) (*cursorFetcher, error) {
	walk, err := lmdbwalk.Open(ds.Path)
	if err != nil {
		return nil, err
	}
	f := &cursorFetcher{walk: walk, opt: opt}
	if opt.Mode.DIO {
		if f.rd, err = reader.Open(ds.Path, opt.Direct); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

// windowBytes is unknown without an index: sizes show only during the walk.
func (f *cursorFetcher) windowBytes([]batchRef) int64 { return 0 }

// record is what the cursor yields for one record.
type record struct {
	num   int // record number
	key   []byte
	val   []byte
	start int64 // offset of the value in the data file
}

func (f *cursorFetcher) fetch(ctx context.Context, w *window, acquire func() error) error {
	// liblmdb's read transaction is not tied to a thread (MDB_NOTLS), but
	// keeping the walk on one thread keeps its page faults on one core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := acquire(); err != nil { // the walk itself faults pages in from storage
		return err
	}
	recs := make([][]record, len(w.batches))
	var keyBytes, valBytes int64
	for i, b := range w.batches {
		for _, r := range b.records {
			k, v, err := f.walk.Seek(r)
			if err != nil {
				return err
			}
			if !f.opt.Mode.DIO {
				lmdbwalk.FaultIn(v) // copied later: bring it in now, in walk order
			}
			recs[i] = append(recs[i], record{num: r, key: k, val: v, start: f.walk.FileOffset(v)})
			keyBytes += int64(len(k))
			valBytes += int64(len(v))
		}
	}
	if f.opt.Mode.DIO {
		return f.fetchDirect(ctx, w, recs, keyBytes)
	}
	if err := f.fetchCopy(ctx, w, recs, keyBytes+valBytes); err != nil {
		return err
	}
	return f.walk.Check() // the copies came from the snapshot
}

// fetchCopy copies keys and values out of the map into the arena.
func (f *cursorFetcher) fetchCopy(ctx context.Context, w *window, recs [][]record, size int64) error {
	base, err := f.arena.alloc(ctx, size, 0, w.roomIDs())
	if err != nil {
		return err
	}
	at := base
	put := func(b []byte) (int64, int64) {
		copy(f.buf[at:], b)
		at += int64(len(b))
		f.copied += int64(len(b))
		return at - int64(len(b)), int64(len(b))
	}
	for i, batch := range recs {
		for _, r := range batch {
			it := handoff.Item{Record: int64(r.num)}
			it.Offset, it.Length = put(r.val)
			it.KeyOffset, it.KeyLength = put(r.key)
			w.items[i] = append(w.items[i], it)
		}
	}
	return nil
}

// fetchDirect preads each batch's byte range, as located by the cursor.
func (f *cursorFetcher) fetchDirect(ctx context.Context, w *window, recs [][]record, keyBytes int64) error {
	popt := planner.Options{MaxSpan: math.MaxInt64, MaxGap: f.opt.MaxGap}
	if f.opt.Direct {
		popt.Align = alignment
	}
	var ext extents
	first := make([]int, len(recs)) // number of the batch's first record in ext
	for i, batch := range recs {
		first[i] = len(ext)
		for _, r := range batch {
			if r.start < 0 {
				return fmt.Errorf("liblmdb returned a value outside its map")
			}
			ext = append(ext, [2]int64{r.start, int64(len(r.val))})
		}
	}
	spans := f.planBatches(ext, first, popt)
	if spansBytes(spans) > f.arena.size/int64(f.opt.Prefetch+1) {
		// Without an index the arena was sized from the mean record; reading
		// through gaps made this window too big for it, so read only the
		// records' own bytes.
		popt.MaxGap = 0
		spans = f.planBatches(ext, first, popt)
	}
	size := spansBytes(spans)
	base, err := f.arena.alloc(ctx, size+keyBytes, size, w.roomIDs())
	if err != nil {
		return err
	}
	loads, _ := layoutLoads(f.rd, f.arena, f.buf, base, spans)
	for _, l := range loads {
		// The places came from the snapshot, and so must the bytes.
		l.snapshot = f.walk.Check
	}
	place := placements(loads)
	for _, l := range loads {
		w.loads = append(w.loads, l)
	}
	keyAt := base + size
	for i, batch := range recs {
		for j, r := range batch {
			p := place[first[i]+j]
			copy(f.buf[keyAt:], r.key)
			w.items[i] = append(w.items[i], handoff.Item{Record: int64(r.num), Offset: p.offset, Length: p.length,
				KeyOffset: keyAt, KeyLength: int64(len(r.key))})
			w.need(i, p.load)
			keyAt += int64(len(r.key))
		}
	}
	return nil
}

func (f *cursorFetcher) stats() reader.Stats {
	if f.rd != nil {
		return f.rd.Stats()
	}
	return reader.Stats{Bytes: f.copied}
}

func (f *cursorFetcher) close() error {
	var err error
	if f.rd != nil {
		err = f.rd.Close()
	}
	if e := f.walk.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// extents is a list of (offset, length) pairs the planner can read.
type extents [][2]int64

func (e extents) Extent(i int) (off, n int64) { return e[i][0], e[i][1] }

func (f *cursorFetcher) attach(a *arena, buf []byte) { f.arena, f.buf = a, buf }

// planBatches plans each batch's reads on its own: a batch is read as the
// byte range its records span (split only at gaps larger than MaxGap).
func (f *cursorFetcher) planBatches(ext extents, first []int, popt planner.Options) []planner.Span {
	var spans []planner.Span
	for i := range first {
		end := len(ext)
		if i+1 < len(first) {
			end = first[i+1]
		}
		nums := make([]int, 0, end-first[i])
		for n := first[i]; n < end; n++ {
			nums = append(nums, n)
		}
		spans = append(spans, planner.Plan(ext, nums, popt)...)
	}
	return spans
}
