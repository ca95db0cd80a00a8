package loader

import (
	"context"
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/planner"
	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/source"
)

// spanRead is one read of the node reader: a planned span, the arena bytes
// it lands in, and its outcome. done is closed once err is set.
type spanRead struct {
	rd     *reader.SpanReader
	dst    []byte
	span   planner.Span
	verify source.Verifier            // when set, checks each record's bytes after the read
	pin    interface{ Check() error } // when set, checks the snapshot is still the one read
	done   chan struct{}
	err    error
}

// placement says where one record's bytes land in the arena, and which read
// brings them.
type placement struct {
	offset, length int64
	read           *spanRead
}

// layoutReads lays spans out one after another from base, each at an
// aligned position, and makes a read for each. It returns the reads, where
// every requested record lands (by record number), and the bytes used.
func layoutReads(rd *reader.SpanReader, buf []byte, base int64, spans []planner.Span) ([]*spanRead, map[int]placement) {
	reads := make([]*spanRead, len(spans))
	place := make(map[int]placement)
	at := base
	for i, s := range spans {
		n := roundUp(s.Length, alignment)
		r := &spanRead{rd: rd, dst: buf[at : at+n], span: s, done: make(chan struct{})}
		if !rd.Direct() {
			r.dst = r.dst[:s.Length]
		}
		reads[i] = r
		for _, p := range s.Records {
			place[p.Record] = placement{offset: at + p.Offset, length: p.Length, read: r}
		}
		at += n
	}
	return reads, place
}

// spansBytes is the arena room layoutReads needs for spans.
func spansBytes(spans []planner.Span) int64 {
	var size int64
	for _, s := range spans {
		size += roundUp(s.Length, alignment)
	}
	return size
}

// run performs the read and checks that every record it holds arrived: a
// data file shorter than its index says is corrupt or was replaced.
func (r *spanRead) run(ctx context.Context) {
	defer close(r.done)
	if r.err = ctx.Err(); r.err != nil {
		return
	}
	n, err := r.rd.ReadSpan(r.dst, r.span.Offset)
	if err != nil {
		r.err = err
		return
	}
	for _, p := range r.span.Records {
		if p.Offset+p.Length > int64(n) {
			r.err = fmt.Errorf("%s: record %d ends at byte %d but the file ends at %d: the file changed or is corrupt",
				r.rd.Path(), p.Record, r.span.Offset+p.Offset+p.Length, r.span.Offset+int64(n))
			return
		}
		if r.verify != nil {
			if r.err = r.verify.Verify(p.Record, r.dst[p.Offset:p.Offset+p.Length]); r.err != nil {
				return
			}
		}
	}
	if r.pin != nil {
		r.err = r.pin.Check()
	}
}

// wait blocks until the read is done and returns its error.
func (r *spanRead) wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
