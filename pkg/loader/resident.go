package loader

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/lmdbio/lmdbio/internal/source"
)

// residentRead only brings a span into the page cache, for learners that
// view the file: a span that is resident is not read, one that is not is
// read without a copy where the kernel can, else into scratch bytes that
// are dropped; the checks then read the view.
type residentRead struct {
	spanRead
	view *fileView
	hits *atomic.Int64 // counts the records of spans found resident
	// byLearners, when set, reports whether the learners check the bytes
	// in front of a piece's value themselves, as they view it (see
	// leader.heads); the node reader then does not read them.
	byLearners func(piece int) bool
}

func (l *residentRead) run(ctx context.Context) { l.finish(l.read(ctx)) }

func (l *residentRead) read(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.makeResident(); err != nil {
		return err
	}
	return l.check(l.verifyHeads)
}

// makeResident reads the span unless the page cache holds it. Where the
// kernel can, nothing is copied: it sends the span to /dev/null, else
// faults its pages into the node reader's mapping; else it reads the span
// into scratch memory and drops it: the fastest first
// (docs/decisions/0013-views-residency-and-heads.md).
func (l *residentRead) makeResident() error {
	end := l.span.Offset + l.span.Length
	if end > int64(len(l.view.mem)) {
		return fmt.Errorf("%s: bytes %d to %d are past the end of the file (%d): the file changed or is corrupt",
			l.rd.Path(), l.span.Offset, end, len(l.view.mem))
	}
	switch {
	case l.view.resident(l.span.Offset, l.span.Length):
		l.hits.Add(int64(len(l.span.Records)))
	case readIntoCache(l.view.file, l.span.Offset, end), populate(l.view.mem, l.span.Offset, end):
		l.count(int(l.span.Length))
	default:
		buf := getScratch(int(l.span.Length))
		n, err := l.rd.ReadSpan(buf, l.span.Offset)
		putScratch(buf)
		l.count(n)
		if err != nil {
			return err
		}
	}
	return nil
}

// verifyHeads checks the stored blocks of the span as v can. The learners
// check what they are handed themselves, unless it leaves the node; the
// bytes v checks of the rest are read with pread instead of through the
// node reader's view: faulting in one page per record there (with the
// pages the kernel maps around it), and unmapping them at the end, cost
// the node reader more than the few bytes it reads.
func (l *residentRead) verifyHeads(v source.Verifier) error {
	var head []byte
	for _, pl := range l.span.Records {
		if l.byLearners != nil && l.byLearners(pl.Record) {
			continue
		}
		n := v.HeadLen(pl.Record)
		if int64(cap(head)) < n {
			head = make([]byte, n)
		}
		at := l.span.Offset + pl.Offset
		if _, err := l.view.file.ReadAt(head[:n], at); err != nil {
			return fmt.Errorf("%s: the %d bytes in front of record %d at offset %d: %w", l.rd.Path(), n, pl.Record, at, err)
		}
		if err := v.VerifyHead(pl.Record, head[:n]); err != nil {
			return err
		}
	}
	return nil
}
