package handoff

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"
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

// maxFiles bounds the descriptors one message may carry.
const maxFiles = 8

// fill reads once from conn with recvmsg(2), keeping the bytes for next and
// returning the files that came with them (SCM_RIGHTS): a sender attaches
// them to the first byte of its message, so the read that brings that byte
// brings them.
func (fr *frameReader) fill(conn *net.UnixConn) ([]*os.File, error) {
	fr.makeRoom(lengthSize + 1)
	oob := make([]byte, unix.CmsgSpace(maxFiles*4))
	n, oobn, flags, _, err := conn.ReadMsgUnix(fr.buf[fr.end:], oob)
	fr.end += n
	files, ferr := parseRights(oob[:oobn])
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err == nil && flags&unix.MSG_CTRUNC != 0 {
		err = fmt.Errorf("%w: more than %d files came with a message", ErrProtocol, maxFiles)
	}
	if err == nil {
		err = ferr
	}
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	return files, nil
}

// parseRights turns SCM_RIGHTS control messages into files.
func parseRights(oob []byte) ([]*os.File, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("%w: control message: %v", ErrCorrupt, err)
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			unix.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "ring-shared-memory"))
		}
	}
	return files, nil
}
