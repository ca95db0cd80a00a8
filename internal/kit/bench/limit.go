package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/units"
)

// LimitBuffer is the request size of the classic single-stream limit: large
// enough that per-call costs vanish, as dd with bs=16M.
const LimitBuffer = 16 << 20

// Probe is one way of reading a whole file front to back, as a tuned
// sequential reader would: the file is cut into Streams contiguous parts
// read at once, each through its own file descriptor (so each has its own
// readahead state), with Depth requests of Request bytes in flight per
// stream, buffered or with O_DIRECT.
type Probe struct {
	Direct  bool
	Streams int
	Depth   int
	Request int
}

// LimitProbes are the probes lmdbio-bench bench measures the storage with. One
// synchronous stream (the first of each kind) is what dd shows; several
// streams and several requests in flight are what parallel file systems and
// SSDs need to reach their bandwidth. The limit is the fastest of them.
var LimitProbes = []Probe{
	{Direct: false, Streams: 1, Depth: 1, Request: LimitBuffer},
	{Direct: false, Streams: 4, Depth: 2, Request: 4 << 20},
	{Direct: true, Streams: 1, Depth: 1, Request: LimitBuffer},
	{Direct: true, Streams: 1, Depth: 8, Request: 4 << 20},
	{Direct: true, Streams: 4, Depth: 2, Request: LimitBuffer},
}

// String writes p as ParseProbe reads it: "direct:4x2:16MiB".
func (p Probe) String() string {
	kind := "buffered"
	if p.Direct {
		kind = "direct"
	}
	return fmt.Sprintf("%s:%dx%d:%s", kind, p.Streams, p.Depth, units.FormatSize(int64(p.Request)))
}

// ParseProbe reads "buffered|direct:STREAMSxDEPTH:SIZE", e.g.
// "buffered:1x1:16MiB" or "direct:4x2:4MiB".
func ParseProbe(s string) (Probe, error) {
	bad := func(why string) (Probe, error) {
		return Probe{}, fmt.Errorf("limit probe %q: %s (want buffered|direct:STREAMSxDEPTH:SIZE, e.g. direct:4x2:16MiB)", s, why)
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return bad("three parts separated by ':'")
	}
	var p Probe
	switch parts[0] {
	case "buffered":
	case "direct":
		p.Direct = true
	default:
		return bad("the first part is buffered or direct")
	}
	sd := strings.Split(parts[1], "x")
	if len(sd) != 2 {
		return bad("streams and depth as SxD")
	}
	var err error
	if p.Streams, err = strconv.Atoi(sd[0]); err != nil || p.Streams < 1 || p.Streams > 1024 {
		return bad("streams from 1 to 1024")
	}
	if p.Depth, err = strconv.Atoi(sd[1]); err != nil || p.Depth < 1 || p.Depth > 1024 {
		return bad("depth from 1 to 1024")
	}
	n, err := units.ParseSize(parts[2])
	if err != nil || n < reader.Alignment || n > 1<<30 {
		return bad(fmt.Sprintf("a request size from %d bytes to 1GiB", reader.Alignment))
	}
	p.Request = int(n)
	return p, nil
}

// LimitSample is one probe's read of a whole file.
type LimitSample struct {
	Probe   Probe
	Bytes   int64
	Seconds float64
}

// MBPerS is the sample's throughput in decimal megabytes per second.
func (s LimitSample) MBPerS() float64 { return Rate(float64(s.Bytes), s.Seconds) / 1e6 }

// SequentialRead reads the file at path from start to end as the probe says
// and times it, from before the first open to the last byte: a limit a
// loader of that file can reach on this storage. Requests are rounded up to
// reader.Alignment. A file system that refuses O_DIRECT gives an error
// wrapping reader.ErrDirectUnsupported.
func SequentialRead(path string, p Probe) (LimitSample, error) {
	return SequentialReadShare(path, p, 0, 1)
}

// SequentialReadShare is SequentialRead of one of shares contiguous shares
// of the file, as one of several clients that read it together (hosts of
// a parallel file system, each through its own client); Bytes counts the
// share's. Shares are whole numbers of requests, so their offsets stay
// aligned; the last ones may be short or empty.
func SequentialReadShare(path string, p Probe, share, shares int) (LimitSample, error) {
	if p.Streams < 1 || p.Depth < 1 || p.Request < 1 || shares < 1 || share < 0 || share >= shares {
		panic("bench: SequentialRead with a probe of no streams, depth or request size, or a share out of range")
	}
	p.Request = (p.Request + reader.Alignment - 1) / reader.Alignment * reader.Alignment
	start := time.Now()
	streams := make([]*reader.SpanReader, p.Streams)
	defer func() {
		for _, r := range streams {
			if r != nil {
				r.Close()
			}
		}
	}()
	for i := range streams {
		r, err := reader.Open(path, p.Direct)
		if err != nil {
			return LimitSample{Probe: p}, fmt.Errorf("bench: sequential read: %w", err)
		}
		streams[i] = r
	}
	req := int64(p.Request)
	from, to := shareOf(streams[0].Size(), req, share, shares)
	var total atomic.Int64
	var failed atomic.Bool
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for i, r := range streams {
		// Each stream's part is a whole number of requests, so every
		// request offset stays aligned for O_DIRECT.
		lo, hi := shareOf(to-from, req, i, p.Streams)
		var next atomic.Int64
		next.Store(from + lo)
		for range p.Depth {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := readPart(r, &next, from+hi, p.Request, &failed)
				total.Add(n)
				if err != nil {
					once.Do(func() { firstErr = err })
					failed.Store(true)
				}
			}()
		}
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if firstErr != nil {
		return LimitSample{Probe: p}, fmt.Errorf("bench: sequential read: %w", firstErr)
	}
	if got := total.Load(); got != to-from {
		return LimitSample{Probe: p}, fmt.Errorf("bench: sequential read of %s: %d of %d bytes (the file changed)", path, got, to-from)
	}
	return LimitSample{Probe: p, Bytes: to - from, Seconds: secs}, nil
}

// shareOf is the byte range [from, to) of share of shares of a file of
// size bytes, cut in whole requests of req bytes.
func shareOf(size, req int64, share, shares int) (from, to int64) {
	per := ((size+int64(shares)-1)/int64(shares) + req - 1) / req * req
	return min(int64(share)*per, size), min(int64(share+1)*per, size)
}

// readPart takes the next request of a stream until the stream's part ends
// at hi, and returns the bytes read.
func readPart(r *reader.SpanReader, next *atomic.Int64, hi int64, request int, failed *atomic.Bool) (int64, error) {
	buf := reader.Aligned(request)
	var n int64
	for !failed.Load() {
		off := next.Add(int64(request)) - int64(request)
		if off >= hi {
			return n, nil
		}
		want := min(int64(request), hi-off)
		got, err := r.ReadSpan(buf, off)
		if err != nil {
			return n, err
		}
		// A direct read rounds the file's tail up to whole blocks; count
		// only the bytes of this part.
		n += min(int64(got), want)
		if int64(got) < want {
			return n, nil // the file ended early: the caller sees a short total
		}
	}
	return n, errors.New("another request failed")
}
