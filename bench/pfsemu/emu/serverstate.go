package emu

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The server state file: a 64-byte header, then one 64-byte line per
// server whose first 8 bytes are its queue (busy-until, nanoseconds of
// CLOCK_MONOTONIC, little-endian as the machine writes it). A line per
// server keeps clients of different servers off each other's cache lines.
//
//	0  magic        "pfsemuQ1"
//	8  version      uint32 (1)
//	12 servers      uint32
//	16 stripe size  uint64
//	24 stripe count uint32
//	28 threads      uint32
//	32 latency      int64, nanoseconds
//	40 bandwidth    float64 bits, bytes per second (0: unlimited)
//	48 boot id      16 bytes: the queues hold times of this boot only
const (
	stateMagic      = "pfsemuQ1"
	stateVersion    = 1
	stateHeaderSize = 64
	stateLine       = 64
	// MaxServers bounds the servers of one emulated file system.
	MaxServers = 1 << 16
)

// ErrCorruptState is wrapped by errors about a server state file that is
// not one, or is damaged.
var ErrCorruptState = errors.New("corrupt server state file")

// stateHeader is the decoded header: the file system the queues belong to.
type stateHeader struct {
	layout Layout
	cost   ServerCost
	boot   [16]byte
}

func (h stateHeader) encode() []byte {
	b := make([]byte, stateHeaderSize)
	copy(b, stateMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], stateVersion)
	le.PutUint32(b[12:], uint32(h.layout.Servers))
	le.PutUint64(b[16:], uint64(h.layout.StripeSize))
	le.PutUint32(b[24:], uint32(h.layout.StripeCount))
	le.PutUint32(b[28:], uint32(h.cost.Threads))
	le.PutUint64(b[32:], uint64(h.cost.Latency))
	le.PutUint64(b[40:], math.Float64bits(h.cost.Bandwidth))
	copy(b[48:], h.boot[:])
	return b
}

// decodeStateHeader parses and checks a header. Errors wrap
// ErrCorruptState.
func decodeStateHeader(b []byte) (stateHeader, error) {
	var h stateHeader
	if len(b) < stateHeaderSize {
		return h, fmt.Errorf("%w: %d bytes, want at least a %d-byte header", ErrCorruptState, len(b), stateHeaderSize)
	}
	if string(b[:8]) != stateMagic {
		return h, fmt.Errorf("%w: bad magic %q", ErrCorruptState, b[:8])
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != stateVersion {
		return h, fmt.Errorf("%w: version %d, want %d", ErrCorruptState, v, stateVersion)
	}
	servers, count := le.Uint32(b[12:]), le.Uint32(b[24:])
	stripe, threads := le.Uint64(b[16:]), le.Uint32(b[28:])
	lat, bw := int64(le.Uint64(b[32:])), math.Float64frombits(le.Uint64(b[40:]))
	switch {
	case servers == 0 || servers > MaxServers:
		return h, fmt.Errorf("%w: %d servers", ErrCorruptState, servers)
	case count == 0 || count > servers:
		return h, fmt.Errorf("%w: stripe count %d of %d servers", ErrCorruptState, count, servers)
	case stripe == 0 || stripe > math.MaxInt64:
		return h, fmt.Errorf("%w: stripe size %d", ErrCorruptState, stripe)
	case threads == 0 || threads > math.MaxInt32:
		return h, fmt.Errorf("%w: %d threads", ErrCorruptState, threads)
	case lat < 0:
		return h, fmt.Errorf("%w: latency %d", ErrCorruptState, lat)
	case !(bw >= 0) || math.IsInf(bw, 0):
		return h, fmt.Errorf("%w: bandwidth %v", ErrCorruptState, bw)
	}
	h.layout = Layout{Servers: int(servers), StripeSize: int64(stripe), StripeCount: int(count)}
	h.cost = ServerCost{Latency: time.Duration(lat), Threads: int(threads), Bandwidth: bw}
	copy(h.boot[:], b[48:64])
	return h, nil
}

// ServerState holds the queues of the emulated servers: in this process's
// memory, or in a file that every mount of one emulated file system maps
// shared, so that clients in other processes (other emulated hosts) queue
// at the same servers.
type ServerState struct {
	words  []int64 // the header and the lines, as 8-byte words
	mapped []byte  // the file mapping, nil for process memory
}

// NewServerState returns queues for servers in process memory, all idle.
func NewServerState(servers int) *ServerState {
	return &ServerState{words: make([]int64, (stateHeaderSize+servers*stateLine)/8)}
}

// OpenServerState maps the state file at path, creating it for layout and
// cost if it does not exist or is empty. An existing file must have been
// made for the same layout and cost (else an ErrOption error: the mounts
// would emulate different file systems); queues left from an earlier boot
// are reset. Creation and checks happen under an exclusive lock on the
// file, so mounts starting at once agree.
func OpenServerState(path string, layout Layout, cost ServerCost) (*ServerState, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("server state: %w", err)
	}
	defer f.Close() // the mapping outlives the descriptor
	fd := int(f.Fd())
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		return nil, fmt.Errorf("server state: lock %s: %w", path, err)
	}
	defer unix.Flock(fd, unix.LOCK_UN)

	want := stateHeader{layout: layout, cost: cost, boot: bootID()}
	size := int64(stateHeaderSize + layout.Servers*stateLine)
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("server state: %w", err)
	}
	if fi.Size() == 0 {
		if err := f.Truncate(size); err != nil {
			return nil, fmt.Errorf("server state: %w", err)
		}
		if _, err := f.WriteAt(want.encode(), 0); err != nil {
			return nil, fmt.Errorf("server state: %w", err)
		}
	}
	head := make([]byte, stateHeaderSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("server state %s: %w: %v", path, ErrCorruptState, err)
	}
	have, err := decodeStateHeader(head)
	if err != nil {
		return nil, fmt.Errorf("server state %s: %w", path, err)
	}
	if have.layout != want.layout || have.cost != want.cost {
		return nil, fmt.Errorf("%w: server state %s is for %s; this mount asks for %s (use the same server flags on every mount, or another file)",
			ErrOption, path, describeServers(have.layout, have.cost), describeServers(want.layout, want.cost))
	}
	if fi.Size() != 0 && fi.Size() != size {
		return nil, fmt.Errorf("server state %s: %w: %d bytes, want %d", path, ErrCorruptState, fi.Size(), size)
	}
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("server state: map %s: %w", path, err)
	}
	s := &ServerState{mapped: mem, words: unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), len(mem)/8)}
	if have.boot != want.boot {
		// Times of another boot's monotonic clock mean nothing now.
		for i := range layout.Servers {
			*s.slot(i) = 0
		}
		copy(mem[48:64], want.boot[:])
	}
	return s, nil
}

// Len returns the number of servers.
func (s *ServerState) Len() int { return (len(s.words)*8 - stateHeaderSize) / stateLine }

// slot returns the queue of server i. Access it only atomically.
func (s *ServerState) slot(i int) *int64 {
	return &s.words[(stateHeaderSize+i*stateLine)/8]
}

// Close unmaps a file's state. The state must not be used afterwards.
func (s *ServerState) Close() error {
	if s.mapped == nil {
		return nil
	}
	err := unix.Munmap(s.mapped)
	s.mapped, s.words = nil, nil
	return err
}

// bootID identifies this boot of the machine (zero if unknown).
func bootID() [16]byte {
	var id [16]byte
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return id
	}
	raw, err := hex.DecodeString(strings.ReplaceAll(string(bytes.TrimSpace(b)), "-", ""))
	if err == nil {
		copy(id[:], raw)
	}
	return id
}
