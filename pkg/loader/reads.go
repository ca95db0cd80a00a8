package loader

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

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

// load is one read from storage: a planned span of pieces and the bytes it
// lands in (shared memory for blocks stored as is, a staging buffer for
// blocks to decode).
type load struct {
	signal
	rd     *reader.SpanReader
	span   planner.Span
	dst    []byte
	at     int64               // where dst starts in its shared-memory segment; -1 for staging
	verify func(l *load) error // checks the blocks of a stored-as-is span; nil for none
	// reserve, when set, reserves dst's pages in shared memory before the
	// read (arena.ensure).
	reserve func(off, n int64) error
	bytes   *atomic.Int64 // the epoch's storage bytes, counted after the read
	reads   *atomic.Int64 // the epoch's storage reads
	// view, when set, makes the load only bring the span into the page
	// cache for learners that view the file: a span that is resident is
	// not read, one that is not is read into scratch bytes that are
	// dropped; the checks then read the view. hits counts the records of
	// resident spans.
	view *fileView
	hits *atomic.Int64
	// byLearners, when set, reports whether the learners check the bytes
	// in front of a piece's value themselves, as they view it (see
	// leader.heads); the node reader then does not read them.
	byLearners func(piece int) bool
}

// run performs the read and checks that every piece it holds arrived: a
// data file shorter than its index says is corrupt or was replaced.
func (l *load) run(ctx context.Context) {
	l.finish(l.read(ctx))
}

func (l *load) read(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.view != nil {
		return l.makeResident()
	}
	if l.reserve != nil {
		if err := l.reserve(l.at, int64(len(l.dst))); err != nil {
			return err
		}
	}
	n, err := l.rd.ReadSpan(l.dst, l.span.Offset)
	l.count(n)
	if err != nil {
		return err
	}
	for _, p := range l.span.Records {
		if p.Offset+p.Length > int64(n) {
			return fmt.Errorf("%s: bytes %d to %d are past the end of the file (%d): the file changed or is corrupt",
				l.rd.Path(), l.span.Offset+p.Offset, l.span.Offset+p.Offset+p.Length, l.span.Offset+int64(n))
		}
	}
	if l.verify != nil {
		return l.verify(l)
	}
	return nil
}

// makeResident reads the span unless the page cache holds it, then checks
// its bytes through the view. Where the kernel can, nothing is copied: it
// sends the span to /dev/null, else faults its pages into the node
// reader's mapping; else it reads the span into scratch memory and drops
// it. Measured on this project's virtual disk, 16 MiB spans 8 at a time:
// faulting in was 1.1 times as fast as preads into scratch memory (2 times
// with 4 MiB spans), and sending 1.08 times as fast as faulting in, with a
// quarter less system time: the node reader maps no pages, only the
// learners do.
func (l *load) makeResident() error {
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
	l.dst = l.view.mem[l.span.Offset:end:end]
	if l.verify != nil {
		return l.verify(l)
	}
	return nil
}

// verifyBlocks checks the stored blocks of the span as v can. Where the
// learners view the file, they check what they are handed themselves,
// unless it leaves the node; the bytes v checks of the rest are read with
// pread instead of through the node reader's view: faulting in one page
// per record there (with the pages the kernel maps around it), and
// unmapping them at the end, cost the node reader more than the few bytes
// it reads.
func (l *load) verifyBlocks(v source.Verifier) error {
	var head []byte
	for _, pl := range l.span.Records {
		if l.view == nil {
			if err := v.Verify(pl.Record, l.pieceBytes(pl)); err != nil {
				return err
			}
			continue
		}
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

// count adds a read of n bytes to the epoch's figures.
func (l *load) count(n int) {
	if l.bytes != nil {
		l.bytes.Add(int64(n))
		l.reads.Add(1)
	}
}

// pieceBytes returns the bytes of placement p of the span, as read.
func (l *load) pieceBytes(p planner.Placed) []byte {
	return l.dst[p.Offset : p.Offset+p.Length : p.Offset+p.Length]
}

// decode is the decoding of one block from the loads that read its pieces
// into staging buffers; the decoded bytes land in dst (shared memory).
type decode struct {
	signal
	block  int32
	dec    source.Decoder
	verify source.Verifier
	parts  []piecePart // in the order Source.Pieces lists them
	dst    []byte
	st     *epochCounters
}

// piecePart is where one piece of a block to decode was read.
type piecePart struct {
	from *load
	at   planner.Placed
}

func (d *decode) run(ctx context.Context) {
	d.finish(d.decode(ctx))
}

func (d *decode) decode(ctx context.Context) error {
	pieces := make([][]byte, len(d.parts))
	for i, p := range d.parts {
		if err := p.from.wait(ctx); err != nil {
			return err
		}
		pieces[i] = p.from.pieceBytes(p.at)
	}
	start := time.Now()
	if err := d.dec.Decode(int(d.block), pieces, d.dst); err != nil {
		return err
	}
	d.st.decodeNanos.Add(int64(time.Since(start)))
	d.st.decodedBytes.Add(int64(len(d.dst)))
	if d.verify != nil {
		return d.verify.Verify(int(d.block), d.dst)
	}
	return nil
}

// layoutLoads lays spans out one after another in the arena's buffer buf
// from base, each at an aligned position, and makes a load for each, which
// reserves its pages before it reads. It returns the loads and the bytes
// used.
func layoutLoads(rd *reader.SpanReader, a *arena, buf []byte, base int64, spans []planner.Span) ([]*load, int64) {
	loads := make([]*load, len(spans))
	at := base
	for i, s := range spans {
		n := roundUp(s.Length, alignment)
		l := &load{signal: newSignal(), rd: rd, span: s, dst: buf[at : at+n], at: at, reserve: a.ensure}
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

// stagingLoads makes loads whose bytes go to fresh staging buffers (Go
// memory), for blocks that are decoded afterwards. With O_DIRECT the
// buffers are aligned.
func stagingLoads(rd *reader.SpanReader, spans []planner.Span) []*load {
	loads := make([]*load, len(spans))
	for i, s := range spans {
		var dst []byte
		if rd.Direct() {
			dst = reader.Aligned(int(roundUp(s.Length, alignment)))
		} else {
			dst = make([]byte, s.Length)
		}
		loads[i] = &load{signal: newSignal(), rd: rd, span: s, dst: dst, at: -1}
	}
	return loads
}

// placement says where one piece's bytes land in shared memory, and which
// load brings them.
type placement struct {
	offset, length int64
	load           *load
}

// placements maps every piece of loads (laid out by layoutLoads) to where
// it lands.
func placements(loads []*load) map[int]placement {
	place := make(map[int]placement)
	for _, l := range loads {
		for _, p := range l.span.Records {
			place[p.Record] = placement{offset: l.at + p.Offset, length: p.Length, load: l}
		}
	}
	return place
}
