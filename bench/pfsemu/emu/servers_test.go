package emu

import (
	"sync"
	"testing"
	"time"
)

// fakeServers returns a server model in process memory on a clock that
// moves only when the test says so.
func fakeServers(l Layout, c ServerCost) (*Servers, *int64) {
	now := new(int64)
	*now = int64(time.Hour) // any start: the queues begin idle
	s := NewServers(l, c, NewServerState(l.Servers))
	s.clock = func() int64 { return *now }
	return s, now
}

const ms = time.Millisecond

// TestServersIdle checks the cost of one request at idle servers: the
// server latency plus the bytes at the server's bandwidth.
func TestServersIdle(t *testing.T) {
	s, now := fakeServers(Layout{4, 1 << 20, 4}, ServerCost{Latency: ms, Threads: 1, Bandwidth: 1e9})
	total, queued := s.Serve(0, 0, 1e6, nil) // 1 MB at 1 GB/s: 1 ms
	if total != 2*ms || queued != 0 {
		t.Fatalf("1 MB at an idle server: %v (queued %v), want 2ms (queued 0)", total, queued)
	}
	// A request over two stripes is served by two servers at once.
	*now += int64(time.Second)
	total, queued = s.Serve(0, 1<<20-500_000, 1e6, nil)
	if total != ms+500*time.Microsecond || queued != 0 {
		t.Fatalf("1 MB over two idle servers: %v (queued %v), want 1.5ms", total, queued)
	}
}

// TestServersQueueGrowsWithLoad checks that a request's latency grows with
// the requests outstanding at its server, as configured: with one thread
// each waits for all before it; with T threads, T are served at once.
func TestServersQueueGrowsWithLoad(t *testing.T) {
	tests := []struct {
		name    string
		cost    ServerCost
		n       int64
		want    []time.Duration // total of the k-th request arriving at one instant
		queuedK time.Duration   // queueing of the last
	}{
		{"one thread", ServerCost{Latency: ms, Threads: 1}, 4096,
			[]time.Duration{ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms}, 4 * ms},
		{"four threads", ServerCost{Latency: ms, Threads: 4}, 0,
			[]time.Duration{ms, ms, ms, ms, 1250 * time.Microsecond, 1500 * time.Microsecond, 1750 * time.Microsecond, 2 * ms}, ms},
		{"bytes are not parallel", ServerCost{Latency: ms, Threads: 4, Bandwidth: 1e9}, 1e6,
			// each takes 0.25 ms of latency share and 1 ms of bytes.
			[]time.Duration{2 * ms, 2500 * time.Microsecond, 3750 * time.Microsecond, 5 * ms}, 3 * ms},
		{"bandwidth only", ServerCost{Threads: 1, Bandwidth: 1e8}, 1e6,
			[]time.Duration{10 * ms, 20 * ms, 30 * ms}, 20 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := fakeServers(Layout{2, 1 << 20, 2}, tt.cost)
			var queued time.Duration
			for k, want := range tt.want {
				var total time.Duration
				total, queued = s.Serve(0, 0, tt.n, nil)
				if total != want {
					t.Fatalf("request %d of %d at once: %v, want %v", k+1, len(tt.want), total, want)
				}
			}
			if queued != tt.queuedK {
				t.Fatalf("last request queued %v, want %v", queued, tt.queuedK)
			}
			// The other server is idle all the while.
			if total, _ := s.Serve(0, 1<<20, tt.n, nil); total != tt.want[0] {
				t.Fatalf("request at the idle server: %v, want %v", total, tt.want[0])
			}
		})
	}
}

// TestServersQueueDrains checks that a queue empties at the server's pace:
// arriving later means waiting less, and after the backlog nothing.
func TestServersQueueDrains(t *testing.T) {
	s, now := fakeServers(Layout{1, 1 << 20, 1}, ServerCost{Latency: ms, Threads: 1})
	for range 10 {
		s.Serve(0, 0, 0, nil) // 10 ms of work accepted at t
	}
	*now += int64(4 * ms)
	if total, queued := s.Serve(0, 0, 0, nil); total != 7*ms || queued != 6*ms {
		t.Fatalf("4 ms later: %v (queued %v), want 7ms (queued 6ms)", total, queued)
	}
	*now += int64(time.Second)
	if total, queued := s.Serve(0, 0, 0, nil); total != ms || queued != 0 {
		t.Fatalf("after the backlog: %v (queued %v), want 1ms", total, queued)
	}
}

// TestServersCountsPieces checks the per-server callback, which the mount
// uses for its per-server counters.
func TestServersCountsPieces(t *testing.T) {
	s, _ := fakeServers(Layout{3, 4096, 3}, ServerCost{Threads: 1})
	counts := make([]int, 3)
	s.Serve(2, 4000, 5000, func(server int) { counts[server]++ }) // pieces on 2, 0, 1
	s.Serve(2, 0, 10, func(server int) { counts[server]++ })      // on 2
	if want := []int{1, 1, 2}; counts[0] != want[0] || counts[1] != want[1] || counts[2] != want[2] {
		t.Fatalf("pieces per server %v, want %v", counts, want)
	}
}

// TestServersConcurrent checks that concurrent clients lose no reservation:
// n requests of one instant end at n·share, whatever their interleaving.
func TestServersConcurrent(t *testing.T) {
	s, _ := fakeServers(Layout{1, 1 << 20, 1}, ServerCost{Latency: ms, Threads: 1})
	const n = 64
	totals := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); totals[i], _ = s.Serve(0, 0, 0, nil) }()
	}
	wg.Wait()
	seen := map[time.Duration]bool{}
	for _, d := range totals {
		seen[d] = true
	}
	for k := 1; k <= n; k++ {
		if !seen[time.Duration(k)*ms] {
			t.Fatalf("no request took %d ms: %v", k, totals)
		}
	}
}

// BenchmarkServersServe measures what the server model adds to a request:
// a compare-and-swap on process memory or on the shared file mapping, with
// all goroutines on the same servers.
func BenchmarkServersServe(b *testing.B) {
	l := Layout{Servers: 4, StripeSize: 1 << 20, StripeCount: 4}
	c := ServerCost{Latency: ms, Threads: 1}
	run := func(b *testing.B, state *ServerState) {
		s := NewServers(l, c, state)
		b.RunParallel(func(pb *testing.PB) {
			var off int64
			for pb.Next() {
				s.Serve(0, off, 128<<10, nil)
				off += 128 << 10
			}
		})
	}
	b.Run("state=process", func(b *testing.B) { run(b, NewServerState(l.Servers)) })
	b.Run("state=file", func(b *testing.B) {
		st, err := OpenServerState(b.TempDir()+"/q", l, c)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		run(b, st)
	})
}
