package ring

import (
	"encoding/binary"
	"fmt"
	"io"
)

// frameReader cuts a byte stream into frames. It keeps a partial frame across
// calls, so a read interrupted by a deadline (Client.Recv's ctx) loses nothing
// and the next call resumes where this one stopped. One read(2) may bring
// several frames; they are handed out without further system calls.
type frameReader struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end] holds bytes not yet decoded
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: r, buf: make([]byte, 64<<10)}
}

// next returns the next message. At a clean end of stream (between frames)
// it returns io.EOF; inside a frame io.ErrUnexpectedEOF.
func (fr *frameReader) next() (Message, error) {
	for {
		avail := fr.end - fr.start
		need := lengthSize + 1
		if avail >= lengthSize {
			n := binary.LittleEndian.Uint32(fr.buf[fr.start:])
			if err := checkFrameLength(n); err != nil {
				return nil, err
			}
			need = lengthSize + int(n)
			if avail >= need {
				m, err := Decode(fr.buf[fr.start : fr.start+need])
				fr.start += need
				return m, err
			}
		}
		fr.makeRoom(need)
		k, err := fr.r.Read(fr.buf[fr.end:])
		fr.end += k
		if err != nil {
			if err == io.EOF && fr.end > fr.start {
				return nil, fmt.Errorf("%w: stream ended inside a frame (%d bytes of it)", io.ErrUnexpectedEOF, fr.end-fr.start)
			}
			return nil, err
		}
	}
}

// makeRoom ensures buf can hold need bytes from start, moving the pending
// bytes to the front or growing buf (never beyond one maximal frame).
func (fr *frameReader) makeRoom(need int) {
	if fr.start == fr.end {
		fr.start, fr.end = 0, 0
	}
	if len(fr.buf)-fr.start >= need && fr.end < len(fr.buf) {
		return
	}
	if len(fr.buf) < need {
		nb := make([]byte, need)
		fr.end = copy(nb, fr.buf[fr.start:fr.end])
		fr.buf, fr.start = nb, 0
		return
	}
	fr.end = copy(fr.buf, fr.buf[fr.start:fr.end])
	fr.start = 0
}
