package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Extents gives the file extent of record i. index.Index satisfies it
// satisfy it. Plan calls Extent once per requested record, from one
// goroutine.
type Extents interface {
	Extent(i int) (off, n int64)
}

// Placed locates one requested record inside the buffer of its span.
type Placed struct {
	// Record is the record number as requested.
	Record int
	// Offset is where the record's bytes start within the span buffer.
	Offset int64
	// Length is the record's length in bytes.
	Length int64
}

// Span is one read: Length bytes of the file from Offset, holding Records.
type Span struct {
	Offset, Length int64
	// Records lists the placements in file order. Slices of different spans
	// share one backing array but never overlap; appending to one is safe.
	Records []Placed
}

// End returns the file offset just past the span.
func (s Span) End() int64 { return s.Offset + s.Length }

// wanted is one requested record with its extent, before placement.
type wanted struct {
	record   int
	off, end int64
}

// Plan returns the spans to read so that every record in records is
// available, following opt. It neither mutates records nor keeps it. The
// invariants the result satisfies are listed in the package documentation.
//
// Plan panics if opt.Align is not 0 or a power of two, or if src returns a
// negative or overflowing extent: both are programming mistakes, since
// extents come from a validated index.
func Plan(src Extents, records []int, opt Options) []Span {
	opt.check()
	if len(records) == 0 {
		return nil
	}
	want := make([]wanted, len(records))
	for i, r := range records {
		off, n := src.Extent(r)
		if off < 0 || n < 0 || off > math.MaxInt64-n-max(opt.Align, 0) {
			panic(fmt.Sprintf("planner: record %d has invalid extent %d+%d", r, off, n))
		}
		want[i] = wanted{record: r, off: off, end: off + n}
	}
	// Stable, so duplicates and records at one offset keep the caller's order.
	slices.SortStableFunc(want, func(a, b wanted) int { return cmp.Compare(a.off, b.off) })

	// Records whose bytes (widened to Align) overlap must share a span, so
	// they are first gathered into clusters; only then are whole clusters
	// merged under MaxGap and MaxSpan. Merging record by record instead
	// could join two neighbours and then be forced to add an overlapping
	// third, growing a span past MaxSpan that a cluster-wise choice keeps
	// within it.
	clusters := clusterize(want, opt)

	// One backing array for all placements: one allocation instead of one
	// per span.
	placed := make([]Placed, len(want))
	spans := make([]Span, 0, len(clusters))
	cur := clusters[0]
	flush := func() {
		for i := cur.first; i < cur.last; i++ {
			w := want[i]
			placed[i] = Placed{Record: w.record, Offset: w.off - cur.start, Length: w.end - w.off}
		}
		spans = append(spans, Span{Offset: cur.start, Length: cur.end - cur.start,
			Records: placed[cur.first:cur.last:cur.last]})
	}
	for _, c := range clusters[1:] {
		if c.start-cur.end <= opt.MaxGap && (opt.MaxSpan <= 0 || c.end-cur.start <= opt.MaxSpan) {
			cur.end, cur.last = c.end, c.last
			continue
		}
		flush()
		cur = c
	}
	flush()
	return spans
}

// cluster is a run want[first:last] of records that must be read together,
// covering the aligned bytes [start, end).
type cluster struct {
	first, last int
	start, end  int64
}

// clusterize splits want, sorted by offset, into clusters: a record joins
// the cluster before it when its bytes are already covered or overlap the
// cluster's aligned bytes. Consecutive clusters neither overlap nor share
// an Align block.
func clusterize(want []wanted, opt Options) []cluster {
	var out []cluster
	cur := cluster{first: 0, last: 1, start: opt.down(want[0].off), end: opt.up(want[0].end)}
	for i := 1; i < len(want); i++ {
		w := want[i]
		if w.end <= cur.end || opt.down(w.off) < cur.end {
			cur.end = max(cur.end, opt.up(w.end))
			cur.last = i + 1
			continue
		}
		out = append(out, cur)
		cur = cluster{first: i, last: i + 1, start: opt.down(w.off), end: opt.up(w.end)}
	}
	return append(out, cur)
}
