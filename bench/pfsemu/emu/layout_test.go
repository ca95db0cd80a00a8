package emu

import (
	"fmt"
	"reflect"
	"testing"
)

func TestLayoutServerOf(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		layout Layout
		first  int
		off    int64
		want   int
	}{
		// Striped over all 4 servers, starting at server 1.
		{Layout{4, mib, 4}, 1, 0, 1},
		{Layout{4, mib, 4}, 1, mib - 1, 1},
		{Layout{4, mib, 4}, 1, mib, 2},
		{Layout{4, mib, 4}, 1, 2 * mib, 3},
		{Layout{4, mib, 4}, 1, 3 * mib, 0}, // wraps to server 0
		{Layout{4, mib, 4}, 1, 4 * mib, 1}, // and round again
		{Layout{4, mib, 4}, 1, 5*mib + 7, 2},
		// Over 2 of 4 servers, starting at server 3: servers 3 and 0.
		{Layout{4, mib, 2}, 3, 0, 3},
		{Layout{4, mib, 2}, 3, mib, 0},
		{Layout{4, mib, 2}, 3, 2 * mib, 3},
		{Layout{4, mib, 2}, 3, 7 * mib, 0},
		// Lustre's default stripe count of 1: the whole file on one server.
		{Layout{8, 4 * mib, 1}, 5, 0, 5},
		{Layout{8, 4 * mib, 1}, 5, 1 << 40, 5},
		// 64 KiB stripes.
		{Layout{3, 64 << 10, 3}, 0, 64 << 10, 1},
		{Layout{3, 64 << 10, 3}, 0, 192 << 10, 0},
	}
	for _, tt := range tests {
		if got := tt.layout.ServerOf(tt.first, tt.off); got != tt.want {
			t.Errorf("%+v.ServerOf(%d, %d) = %d, want %d", tt.layout, tt.first, tt.off, got, tt.want)
		}
	}
}

func TestLayoutPieces(t *testing.T) {
	const mib = 1 << 20
	type piece struct {
		server int
		bytes  int64
	}
	tests := []struct {
		name      string
		layout    Layout
		first     int
		off, n    int64
		want      []piece
		wantTotal int64
	}{
		{"inside one stripe", Layout{4, mib, 4}, 0, 100, 4096, []piece{{0, 4096}}, 4096},
		{"a whole stripe", Layout{4, mib, 4}, 2, mib, mib, []piece{{3, mib}}, mib},
		{"across a boundary", Layout{4, mib, 4}, 0, mib - 100, 200, []piece{{0, 100}, {1, 100}}, 200},
		{"across three stripes", Layout{4, mib, 4}, 3, mib - 10, mib + 20, []piece{{3, 10}, {0, mib}, {1, 10}}, mib + 20},
		{"back to the same server", Layout{2, mib, 1}, 1, 0, 3 * mib, []piece{{1, mib}, {1, mib}, {1, mib}}, 3 * mib},
		{"empty", Layout{4, mib, 4}, 1, 5 * mib, 0, []piece{{2, 0}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []piece
			var total int64
			tt.layout.Pieces(tt.first, tt.off, tt.n, func(server int, bytes int64) {
				got = append(got, piece{server, bytes})
				total += bytes
			})
			if !reflect.DeepEqual(got, tt.want) || total != tt.wantTotal {
				t.Fatalf("Pieces(%d, %d, %d) = %v, want %v", tt.first, tt.off, tt.n, got, tt.want)
			}
		})
	}
}

// TestLayoutFirstServer checks that a file's first server is the same for
// every mount (a function of the path alone), in range, and that files
// spread over the servers.
func TestLayoutFirstServer(t *testing.T) {
	l := Layout{Servers: 4, StripeSize: 1 << 20, StripeCount: 4}
	seen := make([]int, l.Servers)
	for i := range 400 {
		path := fmt.Sprintf("train_lmdb/shard%d/data.mdb", i)
		s := l.FirstServer(path)
		if s < 0 || s >= l.Servers {
			t.Fatalf("FirstServer(%q) = %d, out of range", path, s)
		}
		if again := (Layout{Servers: 4, StripeSize: 4 << 20, StripeCount: 1}).FirstServer(path); again != s {
			t.Fatalf("FirstServer(%q) depends on the stripe settings: %d and %d", path, s, again)
		}
		seen[s]++
	}
	for s, n := range seen {
		if n < 50 {
			t.Errorf("server %d is first for %d of 400 files: %v", s, n, seen)
		}
	}
}
