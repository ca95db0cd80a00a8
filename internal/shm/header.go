package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"
	"unicode/utf8"
)

// HeaderSize is the size of the header at the start of every segment; the
// data region starts at this offset, so it is aligned for O_DIRECT.
const HeaderSize = 4096

// Header layout, little endian. The checksum covers bytes [0, offCRC).
const (
	offMagic   = 0  // [8]byte
	offVersion = 8  // uint32
	offHdrSize = 12 // uint32, HeaderSize
	offPID     = 16 // uint32, creator pid
	offReserve = 20 // uint32, zero
	offStart   = 24 // uint64, creator start time in clock ticks since boot
	offSize    = 32 // uint64, data bytes after the header
	offCreated = 40 // int64, creation time, Unix nanoseconds
	offJob     = 48 // [maxJob]byte, NUL padded
	maxJob     = 64
	offCRC     = offJob + maxJob // uint32, CRC-32C
	headerLen  = offCRC + 4      // bytes of the header that carry data
)

const version = 1

var (
	magic  = [8]byte{'L', 'M', 'D', 'B', 'I', 'O', 'S', 'M'}
	crcTab = crc32.MakeTable(crc32.Castagnoli)
)

// ErrBadHeader is wrapped by errors for segments whose header is missing,
// damaged, of another version or not an lmdbio header at all.
var ErrBadHeader = errors.New("shm: bad segment header")

// Info describes a segment, as recorded in its header by its creator.
type Info struct {
	// Job is the job id the creator recorded (at most 64 bytes).
	Job string
	// CreatorPID is the pid of the creating process.
	CreatorPID int
	// CreatorStart is the creator's start time in clock ticks after boot
	// (field 22 of /proc/<pid>/stat), 0 if unknown. With the pid it
	// identifies the creator even after the pid is reused.
	CreatorStart uint64
	// Size is the number of data bytes after the header.
	Size int64
	// Created is when the segment was created.
	Created time.Time
}

// marshalHeader writes the header for inf into b, which holds at least
// headerLen bytes.
func marshalHeader(b []byte, inf Info) {
	le := binary.LittleEndian
	clear(b[:headerLen])
	copy(b[offMagic:], magic[:])
	le.PutUint32(b[offVersion:], version)
	le.PutUint32(b[offHdrSize:], HeaderSize)
	le.PutUint32(b[offPID:], uint32(inf.CreatorPID))
	le.PutUint64(b[offStart:], inf.CreatorStart)
	le.PutUint64(b[offSize:], uint64(inf.Size))
	le.PutUint64(b[offCreated:], uint64(inf.Created.UnixNano()))
	copy(b[offJob:offJob+maxJob], inf.Job)
	le.PutUint32(b[offCRC:], crc32.Checksum(b[:offCRC], crcTab))
}

// parseHeader validates and decodes a header. It returns errors wrapping
// ErrBadHeader for anything that is not a header this version wrote.
func parseHeader(b []byte) (Info, error) {
	bad := func(format string, args ...any) (Info, error) {
		return Info{}, fmt.Errorf("%w: %s", ErrBadHeader, fmt.Sprintf(format, args...))
	}
	if len(b) < headerLen {
		return bad("%d bytes, need %d", len(b), headerLen)
	}
	if !bytes.Equal(b[offMagic:offMagic+8], magic[:]) {
		return bad("not an lmdbio segment (magic %q)", b[offMagic:offMagic+8])
	}
	le := binary.LittleEndian
	if got, want := le.Uint32(b[offCRC:]), crc32.Checksum(b[:offCRC], crcTab); got != want {
		return bad("checksum %08x, computed %08x", got, want)
	}
	if v := le.Uint32(b[offVersion:]); v != version {
		return bad("version %d, this build reads version %d", v, version)
	}
	if hs := le.Uint32(b[offHdrSize:]); hs != HeaderSize {
		return bad("header size %d, want %d", hs, HeaderSize)
	}
	pid := le.Uint32(b[offPID:])
	if pid == 0 || pid > 1<<22 { // Linux pid_max is at most 2^22
		return bad("creator pid %d", pid)
	}
	if le.Uint32(b[offReserve:]) != 0 {
		return bad("reserved field is not zero")
	}
	size := le.Uint64(b[offSize:])
	if size > 1<<62 {
		return bad("data size %d", size)
	}
	job := b[offJob : offJob+maxJob]
	if i := bytes.IndexByte(job, 0); i >= 0 {
		if bytes.IndexFunc(job[i:], func(r rune) bool { return r != 0 }) >= 0 {
			return bad("job id not NUL padded")
		}
		job = job[:i]
	}
	if !utf8.Valid(job) {
		return bad("job id is not UTF-8")
	}
	return Info{
		Job:          string(job),
		CreatorPID:   int(pid),
		CreatorStart: le.Uint64(b[offStart:]),
		Size:         int64(size),
		Created:      time.Unix(0, int64(le.Uint64(b[offCreated:]))),
	}, nil
}
