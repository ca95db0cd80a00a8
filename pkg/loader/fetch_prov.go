package loader

import (
	"context"
	"math"

	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/lmdbpin"
	"github.com/lmdbio/lmdbio/pkg/planner"
	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/ring"
	"github.com/lmdbio/lmdbio/pkg/source"
)

// provFetcher reads records where the index says they are (PROV): one span
// per batch, or, with COAL, the whole window's records coalesced into few
// large spans.
type provFetcher struct {
	idx   *index.Index
	src   source.Source // idx as blocks: each value after the bytes that identify it
	pin   *lmdbpin.Pin  // keeps the indexed snapshot, or checks it is still the newest
	rd    *reader.SpanReader
	opt   Options
	arena *arena
	buf   []byte
}

// firstSpan bounds the reads of the very first window: with a few large
// reads in flight the first batch would wait for all of them, since storage
// serves them side by side, while many small ones finish one after another.
const firstSpan = 2 << 20

func (f *provFetcher) plan(batches []batchRef, first bool) (spans []planner.Span, keyBytes int64) {
	popt := planner.Options{MaxSpan: f.opt.MaxSpan, MaxGap: f.opt.MaxGap}
	if first {
		popt.MaxSpan = min(popt.MaxSpan, firstSpan)
	}
	if f.opt.Direct {
		popt.Align = alignment
	}
	var all []int
	for _, b := range batches {
		for _, r := range b.records {
			keyBytes += int64(len(f.idx.Key(r)))
		}
		if f.opt.Mode.COAL {
			all = append(all, b.records...)
			continue
		}
		// Without coalescing, a batch is one read of the bytes its records span.
		one := popt
		one.MaxSpan = math.MaxInt64
		spans = append(spans, planner.Plan(blockExtents{f}, b.records, one)...)
	}
	if f.opt.Mode.COAL {
		spans = planner.Plan(blockExtents{f}, all, popt)
	}
	return spans, keyBytes
}

func (f *provFetcher) windowBytes(batches []batchRef) int64 {
	spans, keyBytes := f.plan(batches, false)
	return spansBytes(spans) + keyBytes
}

// fetch plans the window, takes arena room and the storage turn, and lays
// out the reads; the leader's I/O workers perform them.
func (f *provFetcher) fetch(ctx context.Context, w *window, acquire func() error) error {
	spans, keyBytes := f.plan(w.batches, w.no == 0)
	size := spansBytes(spans)
	base, err := f.arena.alloc(ctx, size+keyBytes, w.ids)
	if err != nil {
		return err
	}
	if err := acquire(); err != nil {
		return err
	}
	reads, place := layoutReads(f.rd, f.buf, base, spans)
	for _, r := range reads {
		r.verify, r.pin = f.src.(source.Verifier), f.pin
	}
	w.reads = reads
	keyAt := base + size
	for i, b := range w.batches {
		for _, r := range b.records {
			key := f.idx.Key(r)
			copy(f.buf[keyAt:], key)
			p := place[r]
			_, at := f.src.BlockOf(r)
			w.items[i] = append(w.items[i], ring.Item{Record: int64(r), Offset: p.offset + at, Length: p.length - at,
				KeyOffset: keyAt, KeyLength: int64(len(key))})
			w.need(i, p.read)
			keyAt += int64(len(key))
		}
	}
	return nil
}

func (f *provFetcher) stats() reader.Stats { return f.rd.Stats() }

func (f *provFetcher) close() error {
	err := f.rd.Close()
	if e := f.pin.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// blockExtents gives the planner each record's block: the value and, in
// front of it, the bytes that Verify checks.
type blockExtents struct{ f *provFetcher }

func (b blockExtents) Extent(i int) (off, n int64) {
	off, n = b.f.idx.Extent(i)
	_, at := b.f.src.BlockOf(i)
	return off - at, n + at
}

func (f *provFetcher) attach(a *arena, buf []byte) { f.arena, f.buf = a, buf }
