package loader

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/source"
)

// completion is something a batch waits for before it may go to its
// learner: a read from storage, the decoding of a block, a window's
// exchange.
type completion interface {
	wait(ctx context.Context) error
}

// signal is a completion that is finished once.
type signal struct {
	done chan struct{}
	err  error
}

func newSignal() signal { return signal{done: make(chan struct{})} }

// finish sets the outcome and wakes the waiters.
func (s *signal) finish(err error) {
	s.err = err
	close(s.done)
}

func (s *signal) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// storageRead is one read of a planned span from storage, run by an I/O
// worker. There is one type per place its bytes go: shared memory where
// learners see them (memRead), a staging buffer for blocks decoded
// afterwards (stagedRead), or only the page cache, for learners that view
// the file (residentRead).
type storageRead interface {
	completion
	// run performs the read and its checks, then finishes the
	// completion.
	run(ctx context.Context)
	// common is what every kind shares: the span, the figures it adds
	// to, the checks it makes.
	common() *spanRead
}

// spanRead is the part every storageRead shares.
type spanRead struct {
	signal
	rd   *reader.SpanReader
	span planner.Span
	// bytes and reads are the epoch's storage figures the read adds to;
	// nil for none.
	bytes, reads *atomic.Int64
	// snapshot checks, after the read, that the data file is still the
	// snapshot the places came from; nil for no check.
	snapshot func() error
	// blocks checks the stored blocks' own bytes, where the source can;
	// nil for no check.
	blocks source.Verifier
}

func (r *spanRead) common() *spanRead { return r }

// count adds a read of n bytes to the epoch's figures.
func (r *spanRead) count(n int) {
	if r.bytes != nil {
		r.bytes.Add(int64(n))
		r.reads.Add(1)
	}
}

// check runs the checks after a read: the blocks with verifyBlocks, when
// there is a verifier and the kind of read checks blocks (nil: it does
// not), then the snapshot.
func (r *spanRead) check(verifyBlocks func(source.Verifier) error) error {
	if r.blocks != nil && verifyBlocks != nil {
		if err := verifyBlocks(r.blocks); err != nil {
			// Bytes that do not match the index: most likely a writer
			// moved the database on; say so if it did.
			return cmp.Or(r.checkSnapshot(), err)
		}
	}
	return r.checkSnapshot()
}

func (r *spanRead) checkSnapshot() error {
	if r.snapshot == nil {
		return nil
	}
	return r.snapshot()
}

// readInto reads the span into dst and checks that every piece it holds
// arrived: a data file shorter than its index says is corrupt or was
// replaced.
func (r *spanRead) readInto(dst []byte) error {
	n, err := r.rd.ReadSpan(dst, r.span.Offset)
	r.count(n)
	if err != nil {
		return err
	}
	for _, p := range r.span.Records {
		if p.Offset+p.Length > int64(n) {
			return fmt.Errorf("%s: bytes %d to %d are past the end of the file (%d): the file changed or is corrupt",
				r.rd.Path(), r.span.Offset+p.Offset, r.span.Offset+p.Offset+p.Length, r.span.Offset+int64(n))
		}
	}
	return nil
}

// memRead reads a span into shared memory (the arena or the cache), where
// the learners see its blocks stored as is.
type memRead struct {
	spanRead
	dst []byte
	at  int64 // where dst starts in its segment
	// reserve, when set, reserves dst's pages in shared memory before the
	// read (arena.ensure).
	reserve func(off, n int64) error
}

func (l *memRead) run(ctx context.Context) { l.finish(l.read(ctx)) }

func (l *memRead) read(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.reserve != nil {
		if err := l.reserve(l.at, int64(len(l.dst))); err != nil {
			return err
		}
	}
	if err := l.readInto(l.dst); err != nil {
		return err
	}
	return l.check(func(v source.Verifier) error {
		for _, pl := range l.span.Records {
			if err := v.Verify(pl.Record, pieceBytes(l.dst, pl)); err != nil {
				return err
			}
		}
		return nil
	})
}

// pieceBytes returns the bytes of placement p of a span read into dst.
func pieceBytes(dst []byte, p planner.Placed) []byte {
	return dst[p.Offset : p.Offset+p.Length : p.Offset+p.Length]
}

// layoutLoads lays spans out one after another in the arena's buffer buf
// from base, each at an aligned position, and makes a load for each, which
// reserves its pages before it reads. It returns the loads and the bytes
// used.
func layoutLoads(rd *reader.SpanReader, a *arena, buf []byte, base int64, spans []planner.Span) ([]*memRead, int64) {
	loads := make([]*memRead, len(spans))
	at := base
	for i, s := range spans {
		n := roundUp(s.Length, alignment)
		l := &memRead{spanRead: spanRead{signal: newSignal(), rd: rd, span: s}, dst: buf[at : at+n], at: at, reserve: a.ensure}
		if !rd.Direct() {
			l.dst = l.dst[:s.Length]
		}
		loads[i] = l
		at += n
	}
	return loads, at - base
}

// spansBytes is the room layoutLoads needs for spans.
func spansBytes(spans []planner.Span) int64 {
	var size int64
	for _, s := range spans {
		size += roundUp(s.Length, alignment)
	}
	return size
}

// placement says where one piece's bytes land in shared memory, and which
// load brings them.
type placement struct {
	offset, length int64
	load           *memRead
}

// placements maps every piece of loads (laid out by layoutLoads) to where
// it lands.
func placements(loads []*memRead) map[int]placement {
	place := make(map[int]placement)
	for _, l := range loads {
		for _, p := range l.span.Records {
			place[p.Record] = placement{offset: l.at + p.Offset, length: p.Length, load: l}
		}
	}
	return place
}
