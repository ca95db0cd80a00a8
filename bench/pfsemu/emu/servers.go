package emu

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ServerCost is what serving one request costs a storage server.
type ServerCost struct {
	// Latency is the time a server spends on each request besides moving
	// its bytes: RPC handling and, on disks, the seek.
	Latency time.Duration
	// Threads is how many requests a server works on at once (Lustre's OSS
	// I/O threads, the disks behind an OST). At least 1.
	Threads int
	// Bandwidth is the bytes per second one server moves, shared by the
	// requests it works on. 0 means unlimited.
	Bandwidth float64
}

// own is the time one request of n bytes takes at an idle server; share is
// the server time it takes from the requests queued behind it. With Threads
// requests served at once, their latencies overlap, their bytes do not.
func (c ServerCost) own(n int64) (own, share int64) {
	var move int64
	if c.Bandwidth > 0 {
		move = int64(float64(n) / c.Bandwidth * 1e9)
	}
	lat := int64(c.Latency)
	return lat + move, lat/int64(c.Threads) + move
}

// Servers is the emulated storage servers of one file system: a layout and,
// per server, a first-come-first-served queue. The queues live in memory
// shared by every mount of the same file system (a ServerState), so the
// requests of all clients, on all emulated hosts, queue together.
//
// A server's queue is one number: the time until which the requests it has
// accepted keep it busy. A request of n bytes arriving at t, with
// own, share = Cost.own(n), moves it to max(t, busy) + share and is done at
// max(t + own, that): at an idle server it takes own; behind k queued
// requests of the same size it takes about k·share longer. This is the
// fluid approximation of a server with Threads workers and one shared
// bandwidth; its capacity is Threads/Latency requests or Bandwidth bytes
// per second. Reserving is one compare-and-swap on shared memory, so the
// model costs a client tens of nanoseconds, not a round trip.
//
// Servers is safe for concurrent use, by goroutines and by processes.
type Servers struct {
	Layout
	Cost  ServerCost
	state *ServerState
	clock func() int64 // nanoseconds on a clock every process shares
}

// NewServers returns the server model over state, which must hold
// layout.Servers queues.
func NewServers(layout Layout, cost ServerCost, state *ServerState) *Servers {
	if state.Len() != layout.Servers {
		panic("emu: NewServers: state holds a different number of servers")
	}
	return &Servers{Layout: layout, Cost: cost, state: state, clock: monotonic}
}

// monotonic is CLOCK_MONOTONIC in nanoseconds: one clock for all the
// processes of a machine (and of its namespaces), untouched by changes of
// the wall clock.
func monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("emu: clock_gettime(CLOCK_MONOTONIC): " + err.Error())
	}
	return ts.Nano()
}

// Serve queues a read of n bytes at off of a file whose first stripe is on
// server first, one piece per server it touches, and returns how long from
// now until the last piece is served, and how much of that the pieces
// waited behind other requests (the longest wait of any piece). count, if
// not nil, is called with the server of each piece.
func (s *Servers) Serve(first int, off, n int64, count func(server int)) (total, queued time.Duration) {
	now := s.clock()
	var done, wait int64
	s.Pieces(first, off, n, func(server int, bytes int64) {
		d, w := s.reserve(server, now, bytes)
		done, wait = max(done, d), max(wait, w)
		if count != nil {
			count(server)
		}
	})
	return time.Duration(done - now), time.Duration(wait)
}

// reserve queues n bytes at server at time now and returns when they are
// served and how long they waited behind other requests.
func (s *Servers) reserve(server int, now, n int64) (done, waited int64) {
	own, share := s.Cost.own(n)
	busy := s.state.slot(server)
	for {
		old := atomic.LoadInt64(busy)
		next := max(now, old) + share
		if atomic.CompareAndSwapInt64(busy, old, next) {
			done = max(now+own, next)
			return done, done - (now + own)
		}
	}
}
