package loader

import (
	"context"
	"time"

	"github.com/lmdbio/lmdbio/internal/planner"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/source"
)

// stagedRead reads a span into a staging buffer (Go memory) for the
// blocks decoded from it afterwards; the decodes wait for it.
type stagedRead struct {
	spanRead
	dst []byte
}

func (l *stagedRead) run(ctx context.Context) { l.finish(l.read(ctx)) }

func (l *stagedRead) read(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.readInto(l.dst); err != nil {
		return err
	}
	return l.check(nil) // decoded blocks are checked once decoded
}

// stagingLoads makes loads whose bytes go to fresh staging buffers (Go
// memory), for blocks that are decoded afterwards. With O_DIRECT the
// buffers are aligned.
func stagingLoads(rd *reader.SpanReader, spans []planner.Span) []*stagedRead {
	loads := make([]*stagedRead, len(spans))
	for i, s := range spans {
		var dst []byte
		if rd.Direct() {
			dst = reader.Aligned(int(roundUp(s.Length, alignment)))
		} else {
			dst = make([]byte, s.Length)
		}
		loads[i] = &stagedRead{spanRead: spanRead{signal: newSignal(), rd: rd, span: s}, dst: dst}
	}
	return loads
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
	from *stagedRead
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
		pieces[i] = pieceBytes(p.from.dst, p.at)
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
