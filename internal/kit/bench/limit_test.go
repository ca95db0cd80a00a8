package bench

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/internal/reader"
)

func TestSequentialRead(t *testing.T) {
	dir := t.TempDir()
	probes := []Probe{
		{Streams: 1, Depth: 1, Request: 8192},
		{Streams: 3, Depth: 2, Request: 4096},
		{Streams: 4, Depth: 3, Request: 5000}, // rounded up to 8192
		{Direct: true, Streams: 1, Depth: 1, Request: 8192},
		{Direct: true, Streams: 2, Depth: 4, Request: 4096},
	}
	for _, size := range []int{0, 1, 4096, 3*4096 + 17, 100_000} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range probes {
			s, err := SequentialRead(path, p)
			if p.Direct && errors.Is(err, reader.ErrDirectUnsupported) {
				t.Logf("size %d: O_DIRECT not supported here: %v", size, err)
				continue
			}
			if err != nil {
				t.Fatalf("size %d probe %v: %v", size, p, err)
			}
			if s.Bytes != int64(size) || s.Probe.Direct != p.Direct || s.Seconds < 0 {
				t.Errorf("size %d probe %v: got %+v", size, p, s)
			}
		}
	}
	if _, err := SequentialReadShare(filepath.Join(dir, "missing"), LimitProbes[0], 1, 2); err == nil {
		t.Error("reading a missing file succeeded")
	}
}

func TestParseProbe(t *testing.T) {
	for _, p := range LimitProbes {
		got, err := ParseProbe(p.String())
		if err != nil || got != p {
			t.Errorf("ParseProbe(%q) = %+v, %v; want %+v", p.String(), got, err, p)
		}
	}
	if got, err := ParseProbe("direct:4x2:1MiB"); err != nil || got != (Probe{Direct: true, Streams: 4, Depth: 2, Request: 1 << 20}) {
		t.Errorf("ParseProbe(direct:4x2:1MiB) = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "direct", "mmap:1x1:1MiB", "direct:4:1MiB", "direct:0x1:1MiB", "direct:1x0:1MiB",
		"direct:1x1:100", "direct:1x1:2GiB", "direct:axb:1MiB", "direct:1x1:1MiB:x"} {
		if p, err := ParseProbe(bad); err == nil {
			t.Errorf("ParseProbe(%q) accepted: %+v", bad, p)
		}
	}
}

func FuzzParseProbe(f *testing.F) {
	f.Add("direct:4x2:16MiB")
	f.Add("buffered:1x1:4096")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProbe(s)
		if err != nil {
			return
		}
		if p.Streams < 1 || p.Depth < 1 || p.Request < 4096 {
			t.Fatalf("ParseProbe(%q) = %+v", s, p)
		}
		if q, err := ParseProbe(p.String()); err != nil || q != p {
			t.Fatalf("round trip of %q: %+v, %v", s, q, err)
		}
	})
}

// TestSequentialReadShares: the shares of several hosts, read one by one,
// add up to the file, each a whole number of requests from an aligned
// offset, whatever the number of hosts (more hosts than requests leave
// some shares empty).
func TestSequentialReadShares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 10*8192 + 123
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, hosts := range []int{1, 2, 3, 8, 16} {
		for _, p := range []Probe{{Streams: 1, Depth: 1, Request: 8192}, {Direct: true, Streams: 3, Depth: 2, Request: 8192}} {
			var total int64
			var end int64
			for h := range hosts {
				from, to := shareOf(size, 8192, h, hosts)
				if from != end || from%8192 != 0 && from != size || to < from {
					t.Fatalf("%d hosts, share %d: [%d, %d) after %d", hosts, h, from, to, end)
				}
				end = to
				s, err := SequentialReadShare(path, p, h, hosts)
				if p.Direct && errors.Is(err, reader.ErrDirectUnsupported) {
					t.Skipf("O_DIRECT not supported here: %v", err)
				}
				if err != nil {
					t.Fatalf("%d hosts, share %d, probe %v: %v", hosts, h, p, err)
				}
				if s.Bytes != to-from {
					t.Errorf("%d hosts, share %d: read %d bytes, want %d", hosts, h, s.Bytes, to-from)
				}
				total += s.Bytes
			}
			if total != size || end != size {
				t.Errorf("%d hosts, probe %v: shares read %d bytes and end at %d, want %d", hosts, p, total, end, size)
			}
		}
	}
}
