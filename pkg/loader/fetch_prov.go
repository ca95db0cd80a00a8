package loader

import (
	"context"
	"math"

	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/planner"
	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/ring"
)

// provFetcher reads records where the index says they are (PROV): one span
// per batch, or, with COAL, the whole window's records coalesced into few
// large spans.
type provFetcher struct {
	idx   *index.Index
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
		spans = append(spans, planner.Plan(f.idx, b.records, one)...)
	}
	if f.opt.Mode.COAL {
		spans = planner.Plan(f.idx, all, popt)
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
	w.reads = reads
	keyAt := base + size
	for i, b := range w.batches {
		for _, r := range b.records {
			key := f.idx.Key(r)
			copy(f.buf[keyAt:], key)
			p := place[r]
			w.items[i] = append(w.items[i], ring.Item{Record: int64(r), Offset: p.offset, Length: p.length,
				KeyOffset: keyAt, KeyLength: int64(len(key))})
			w.need(i, p.read)
			keyAt += int64(len(key))
		}
	}
	return nil
}

func (f *provFetcher) stats() reader.Stats { return f.rd.Stats() }
func (f *provFetcher) close() error        { return f.rd.Close() }

func (f *provFetcher) attach(a *arena, buf []byte) { f.arena, f.buf = a, buf }
