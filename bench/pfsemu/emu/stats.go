package emu

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// histBins is one bin per power of two: bin k counts request sizes in
// (2^(k-1), 2^k], bin 0 counts empty requests.
const histBins = 64

// counters are the live, lock-free tallies of a mount. Every field is
// updated atomically, so Snapshot may run while requests are served.
type counters struct {
	requests    atomic.Int64
	bytes       atomic.Int64
	opens       atomic.Int64
	directOpens atomic.Int64
	errors      atomic.Int64
	largest     atomic.Int64
	throttledNs atomic.Int64
	serverNs    atomic.Int64   // time at the servers, queueing included
	queuedNs    atomic.Int64   // of which waiting behind other requests
	perServer   []atomic.Int64 // request pieces per server; nil without servers
	sizes       [histBins]atomic.Int64
}

// countServer counts a request piece at server.
func (c *counters) countServer(server int) { c.perServer[server].Add(1) }

// sizeBin returns the histogram bin of a request of size bytes.
func sizeBin(size int64) int {
	if size <= 0 {
		return 0
	}
	return bits.Len64(uint64(size - 1))
}

// record counts one read request: size is what the kernel asked for, n the
// bytes returned (less at the end of a file).
func (c *counters) record(size int64, n int64) {
	c.requests.Add(1)
	c.bytes.Add(n)
	c.sizes[sizeBin(size)].Add(1)
	for {
		old := c.largest.Load()
		if size <= old || c.largest.CompareAndSwap(old, size) {
			break
		}
	}
}

// SizeBin is one non-empty bin of the request-size histogram: Count requests
// asked for more than half of Max and at most Max bytes.
type SizeBin struct {
	Max   int64 `json:"le"`
	Count int64 `json:"count"`
}

// Stats is a snapshot of a mount's counters, in the form pfsemu prints and
// writes: one JSON object with "type":"pfsemu". Counters start at zero when
// the file system is mounted and only grow.
type Stats struct {
	Type        string    `json:"type"`
	Requests    int64     `json:"requests"`     // READ requests served
	Bytes       int64     `json:"bytes"`        // bytes returned by them
	Largest     int64     `json:"largest"`      // largest request size asked for
	Opens       int64     `json:"opens"`        // files opened
	DirectOpens int64     `json:"direct_opens"` // of which with O_DIRECT
	Errors      int64     `json:"errors"`       // reads that failed
	ThrottledS  float64   `json:"throttled_s"`  // total time requests waited for bandwidth
	ServerS     float64   `json:"server_s"`     // total time requests spent at the servers
	QueuedS     float64   `json:"queued_s"`     // of which waiting behind other requests
	PerServer   []int64   `json:"per_server"`   // request pieces per server ([] without servers)
	ElapsedS    float64   `json:"elapsed_s"`    // since mount
	Sizes       []SizeBin `json:"sizes"`        // request-size histogram, ascending
	Latency     string    `json:"latency"`      // the configuration, for the record
	MaxRequest  int64     `json:"max_request"`
	Readahead   int64     `json:"readahead"`     // as set on the mount's bdi
	Bandwidth   float64   `json:"bandwidth_Bps"` // 0: unlimited
	DirectIO    bool      `json:"direct_io"`
	Splice      bool      `json:"splice"`  // replies spliced from the source, not copied through pfsemu
	Servers     string    `json:"servers"` // the server model, "" for none
	Source      string    `json:"source"`
	Mountpoint  string    `json:"mountpoint"`
}

// snapshot copies the counters; the copy of each counter is exact, the set
// of them is not one atomic instant (good enough for before/after deltas).
func (c *counters) snapshot(start time.Time, now time.Time) Stats {
	s := Stats{
		Type:        "pfsemu",
		Requests:    c.requests.Load(),
		Bytes:       c.bytes.Load(),
		Largest:     c.largest.Load(),
		Opens:       c.opens.Load(),
		DirectOpens: c.directOpens.Load(),
		Errors:      c.errors.Load(),
		ThrottledS:  time.Duration(c.throttledNs.Load()).Seconds(),
		ServerS:     time.Duration(c.serverNs.Load()).Seconds(),
		QueuedS:     time.Duration(c.queuedNs.Load()).Seconds(),
		PerServer:   make([]int64, len(c.perServer)),
		ElapsedS:    now.Sub(start).Seconds(),
		Sizes:       []SizeBin{},
	}
	for i := range c.perServer {
		s.PerServer[i] = c.perServer[i].Load()
	}
	for k := range c.sizes {
		if n := c.sizes[k].Load(); n > 0 {
			max := int64(0)
			switch {
			case k == histBins-1:
				max = math.MaxInt64 // 1<<63 does not fit
			case k > 0:
				max = int64(1) << k
			}
			s.Sizes = append(s.Sizes, SizeBin{Max: max, Count: n})
		}
	}
	return s
}
