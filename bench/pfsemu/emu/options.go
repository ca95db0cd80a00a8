package emu

import (
	"github.com/lmdbio/lmdbio/internal/units"

	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults of the emulated parallel file system: a round trip to a storage
// server, Lustre's usual RPC size and Linux's default readahead, and a
// bandwidth well below a local NVMe disk.
const (
	DefaultLatency    = time.Millisecond
	DefaultMaxRequest = 1 << 20
	DefaultReadahead  = 128 << 10
	DefaultBandwidth  = 1e9 // bytes per second

	// With a server model (Options.Servers > 0): Lustre's classic stripe
	// size, which matches its classic RPC size, and one request at a time
	// per server taking a millisecond, so that a few emulated hosts load a
	// few servers the way thousands of clients load a real file system.
	DefaultStripeSize    = 1 << 20
	DefaultServerLatency = time.Millisecond
	DefaultServerThreads = 1
)

// NoReadahead as Options.Readahead turns the kernel's readahead off.
const NoReadahead = -1

// ErrOption is wrapped by every error about a bad option, so a command can
// tell bad usage from a runtime failure with errors.Is.
var ErrOption = errors.New("bad option")

// Options configure the emulated file system. The zero value is a mount
// with no latency, no bandwidth limit, DefaultMaxRequest and
// DefaultReadahead; DefaultOptions returns the emulated defaults.
type Options struct {
	// Latency is added to every READ request the kernel sends (the RPC
	// cost). Concurrent requests wait concurrently.
	Latency time.Duration
	// MaxRequest is the largest READ request the kernel may send (FUSE
	// max_read and max_pages); larger reads are split. 0 means
	// DefaultMaxRequest. A multiple of the page size, at most the kernel's
	// limit (/proc/sys/fs/fuse/max_pages_limit pages).
	MaxRequest int64
	// Readahead is the page-cache readahead of the mount, set on its bdi
	// (what mmap readers and small buffered reads get). 0 means
	// DefaultReadahead, NoReadahead turns it off. A multiple of 1 KiB.
	Readahead int64
	// Bandwidth caps the bytes per second served to all clients together.
	// 0 means unlimited.
	Bandwidth float64
	// DirectIO makes every open uncached (FOPEN_DIRECT_IO): each read(2)
	// becomes READ requests, nothing is cached. Shared writable mmap is
	// then refused by the kernel; read-only mmap still works on kernels with
	// FUSE_DIRECT_IO_ALLOW_MMAP (6.6+).
	DirectIO bool
	// Debug logs every FUSE request to stderr.
	Debug bool

	// Servers is the number of emulated storage servers (OSTs) that every
	// read request queues at, by the Layout of its file; 0 means none.
	Servers int
	// StripeSize is the bytes of a file on one server before the next.
	// 0 means DefaultStripeSize. A multiple of the page size.
	StripeSize int64
	// StripeCount is the number of servers a file is striped over; 0
	// means all of them.
	StripeCount int
	// ServerLatency is the time a server spends on each request besides
	// moving its bytes (ServerCost.Latency).
	ServerLatency time.Duration
	// ServerThreads is the requests a server works on at once; 0 means
	// DefaultServerThreads.
	ServerThreads int
	// ServerBandwidth is the bytes per second of one server; 0 means
	// unlimited.
	ServerBandwidth float64
	// ServerState is a file holding the servers' queues, shared by every
	// mount that emulates the same file system (other processes, other
	// emulated hosts). "" keeps the queues in this process.
	ServerState string
}

// DefaultOptions returns the emulated defaults: 1 ms per request, 1 MiB
// requests, 128 KiB readahead, 1 GB/s, no server model; if Servers is set,
// 1 MiB stripes over all servers, each serving one request at a time in
// 1 ms plus its bytes at unlimited bandwidth.
func DefaultOptions() Options {
	return Options{Latency: DefaultLatency, MaxRequest: DefaultMaxRequest,
		Readahead: DefaultReadahead, Bandwidth: DefaultBandwidth,
		StripeSize: DefaultStripeSize, ServerLatency: DefaultServerLatency, ServerThreads: DefaultServerThreads}
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.MaxRequest == 0 {
		o.MaxRequest = DefaultMaxRequest
	}
	if o.Readahead == 0 {
		o.Readahead = DefaultReadahead
	}
	if o.StripeSize == 0 {
		o.StripeSize = DefaultStripeSize
	}
	if o.StripeCount == 0 {
		o.StripeCount = o.Servers
	}
	if o.ServerThreads == 0 {
		o.ServerThreads = DefaultServerThreads
	}
	return o
}

// layout and serverCost are the server model of the options (with
// defaults filled in).
func (o Options) layout() Layout {
	return Layout{Servers: o.Servers, StripeSize: o.StripeSize, StripeCount: o.StripeCount}
}

func (o Options) serverCost() ServerCost {
	return ServerCost{Latency: o.ServerLatency, Threads: o.ServerThreads, Bandwidth: o.ServerBandwidth}
}

// readaheadBytes is the readahead to set on the bdi.
func (o Options) readaheadBytes() int64 {
	if o.Readahead == NoReadahead {
		return 0
	}
	return o.Readahead
}

// Validate checks the options against each other and against this kernel's
// FUSE limits. Errors wrap ErrOption.
func (o Options) Validate() error {
	o = o.withDefaults()
	page := int64(os.Getpagesize())
	switch {
	case o.Latency < 0:
		return fmt.Errorf("%w: latency %v is negative", ErrOption, o.Latency)
	case o.Bandwidth < 0:
		return fmt.Errorf("%w: bandwidth %v is negative", ErrOption, o.Bandwidth)
	case o.MaxRequest < page || o.MaxRequest%page != 0:
		return fmt.Errorf("%w: max request %s: want a multiple of the page size %s", ErrOption, units.FormatSize(o.MaxRequest), units.FormatSize(page))
	case o.MaxRequest > KernelMaxRequest():
		return fmt.Errorf("%w: max request %s exceeds this kernel's FUSE limit %s (/proc/sys/fs/fuse/max_pages_limit)",
			ErrOption, units.FormatSize(o.MaxRequest), units.FormatSize(KernelMaxRequest()))
	case o.Readahead < 0 && o.Readahead != NoReadahead:
		return fmt.Errorf("%w: readahead %d is negative", ErrOption, o.Readahead)
	case o.Readahead%1024 != 0 && o.Readahead != NoReadahead:
		return fmt.Errorf("%w: readahead %s: want a multiple of 1KiB", ErrOption, units.FormatSize(o.Readahead))
	}
	return o.validateServers(page)
}

// validateServers checks the server model; o has its defaults filled in.
func (o Options) validateServers(page int64) error {
	switch {
	case o.Servers < 0 || o.Servers > MaxServers:
		return fmt.Errorf("%w: %d servers: want 0 (no server model) to %d", ErrOption, o.Servers, MaxServers)
	case o.Servers == 0 && o.ServerState != "":
		return fmt.Errorf("%w: a server state file needs servers", ErrOption)
	case o.Servers == 0:
		return nil
	case o.StripeSize < page || o.StripeSize%page != 0:
		return fmt.Errorf("%w: stripe size %s: want a multiple of the page size %s", ErrOption, units.FormatSize(o.StripeSize), units.FormatSize(page))
	case o.StripeCount < 0 || o.StripeCount > o.Servers:
		return fmt.Errorf("%w: stripe count %d: want 1 to the %d servers (0: all)", ErrOption, o.StripeCount, o.Servers)
	case o.ServerLatency < 0:
		return fmt.Errorf("%w: server latency %v is negative", ErrOption, o.ServerLatency)
	case o.ServerThreads < 0 || o.ServerThreads > math.MaxInt32:
		return fmt.Errorf("%w: %d server threads: want at least 1", ErrOption, o.ServerThreads)
	case o.ServerBandwidth < 0:
		return fmt.Errorf("%w: server bandwidth %v is negative", ErrOption, o.ServerBandwidth)
	}
	return nil
}

// KernelMaxRequest returns the largest FUSE request this kernel allows:
// fs.fuse.max_pages_limit pages (256 before Linux 6.13, where the knob
// appeared).
func KernelMaxRequest() int64 {
	pages := int64(256)
	if b, err := os.ReadFile("/proc/sys/fs/fuse/max_pages_limit"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			pages = n
		}
	}
	return pages * int64(os.Getpagesize())
}

// String describes the options in the words of the command line.
func (o Options) String() string {
	o = o.withDefaults()
	ra := units.FormatSize(o.readaheadBytes())
	s := fmt.Sprintf("latency %v, max request %s, readahead %s, bandwidth %s", o.Latency, units.FormatSize(o.MaxRequest), ra, units.FormatRate(o.Bandwidth))
	if o.DirectIO {
		s += ", direct-io"
	}
	if o.Servers > 0 {
		s += ", " + describeServers(o.layout(), o.serverCost())
	}
	return s
}

// describeServers says what a server model emulates, in the words of the
// command line.
func describeServers(l Layout, c ServerCost) string {
	over := fmt.Sprintf("over %d", l.StripeCount)
	if l.StripeCount == l.Servers {
		over = "over all"
	}
	return fmt.Sprintf("%d servers (stripe %s %s; %v per request, %d at once, %s each)", l.Servers,
		units.FormatSize(l.StripeSize), over, c.Latency, c.Threads, units.FormatRate(c.Bandwidth))
}
