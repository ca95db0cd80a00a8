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

func (f *provFetcher) plan(batches []batchRef) (spans []planner.Span, keyBytes int64) {
	popt := planner.Options{MaxSpan: f.opt.MaxSpan, MaxGap: f.opt.MaxGap}
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
	spans, keyBytes := f.plan(batches)
	_, size := spanLayout(spans)
	return size + keyBytes
}

func (f *provFetcher) fetch(ctx context.Context, batches []batchRef, ids []uint64, acquire func() error) ([][]ring.Item, error) {
	spans, keyBytes := f.plan(batches)
	at, size := spanLayout(spans)
	base, err := f.arena.alloc(ctx, size+keyBytes, ids)
	if err != nil {
		return nil, err
	}
	if err := acquire(); err != nil {
		return nil, err
	}
	placed, err := readSpans(ctx, f.rd, f.buf, base, spans, at, f.opt.IODepth)
	if err != nil {
		return nil, err
	}
	keyAt := base + size
	items := make([][]ring.Item, len(batches))
	for i, b := range batches {
		items[i] = make([]ring.Item, len(b.records))
		for j, r := range b.records {
			key := f.idx.Key(r)
			copy(f.buf[keyAt:], key)
			p := placed[r]
			items[i][j] = ring.Item{Record: int64(r), Offset: p.offset, Length: p.length,
				KeyOffset: keyAt, KeyLength: int64(len(key))}
			keyAt += int64(len(key))
		}
	}
	return items, nil
}

func (f *provFetcher) stats() reader.Stats { return f.rd.Stats() }
func (f *provFetcher) close() error        { return f.rd.Close() }

func (f *provFetcher) attach(a *arena, buf []byte) { f.arena, f.buf = a, buf }
