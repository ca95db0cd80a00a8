package emu

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

var (
	testLayout = Layout{Servers: 4, StripeSize: 1 << 20, StripeCount: 4}
	testCost   = ServerCost{Latency: ms, Threads: 2, Bandwidth: 5e8}
)

func openStateForTest(t *testing.T, path string, l Layout, c ServerCost) *ServerState {
	t.Helper()
	st, err := OpenServerState(path, l, c)
	if err != nil {
		t.Fatalf("OpenServerState: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestServerStateShared checks that two mappings of one state file (as two
// pfsemu processes have) queue at the same servers: work accepted through
// one delays requests through the other.
func TestServerStateShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	a := NewServers(testLayout, testCost, openStateForTest(t, path, testLayout, testCost))
	b := NewServers(testLayout, testCost, openStateForTest(t, path, testLayout, testCost))
	now := int64(time.Hour)
	a.clock = func() int64 { return now }
	b.clock = a.clock

	own, _ := b.Serve(0, 0, 0, nil) // idle: 1 ms
	for range 4 {
		a.Serve(0, 0, 0, nil) // 4 × 0.5 ms of work at server 0
	}
	total, queued := b.Serve(0, 0, 0, nil)
	if own != ms || total != 3*ms || queued != 2*ms {
		t.Fatalf("through the second mapping: idle %v, after 5 requests through both %v (queued %v); want 1ms, 3ms (2ms)", own, total, queued)
	}
	if total, _ := b.Serve(0, 1<<20, 0, nil); total != ms {
		t.Fatalf("server 1 should be idle: %v", total)
	}
}

// TestServerStateMismatch checks that mounts disagreeing about the file
// system they emulate are refused, with ErrOption (bad usage).
func TestServerStateMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	openStateForTest(t, path, testLayout, testCost)
	for name, tt := range map[string]struct {
		l Layout
		c ServerCost
	}{
		"servers":   {Layout{5, 1 << 20, 5}, testCost},
		"stripe":    {Layout{4, 4 << 20, 4}, testCost},
		"count":     {Layout{4, 1 << 20, 1}, testCost},
		"latency":   {testLayout, ServerCost{Latency: 2 * ms, Threads: 2, Bandwidth: 5e8}},
		"threads":   {testLayout, ServerCost{Latency: ms, Threads: 1, Bandwidth: 5e8}},
		"bandwidth": {testLayout, ServerCost{Latency: ms, Threads: 2}},
	} {
		if _, err := OpenServerState(path, tt.l, tt.c); !errors.Is(err, ErrOption) {
			t.Errorf("%s differs: err = %v, want ErrOption", name, err)
		}
	}
}

func TestServerStateCorrupt(t *testing.T) {
	dir := t.TempDir()
	good := stateHeader{layout: testLayout, cost: testCost}.encode()
	for name, content := range map[string][]byte{
		"not a state file": []byte("hello, this is some other file that happens to be here....."),
		"short":            good[:40],
		"truncated lines":  good, // a header without the servers' lines
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenServerState(path, testLayout, testCost); !errors.Is(err, ErrCorruptState) {
			t.Errorf("%s: err = %v, want ErrCorruptState", name, err)
		}
	}
}

// TestServerStateOtherBoot checks that queue times written under another
// boot (another monotonic clock) are dropped, not waited for.
func TestServerStateOtherBoot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q")
	h := stateHeader{layout: testLayout, cost: testCost, boot: [16]byte{1, 2, 3}}
	content := append(h.encode(), make([]byte, testLayout.Servers*stateLine)...)
	content[stateHeaderSize] = 0xff // server 0 busy far into the future
	content[stateHeaderSize+6] = 0x7f
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStateForTest(t, path, testLayout, testCost)
	if v := atomic.LoadInt64(st.slot(0)); v != 0 {
		t.Fatalf("queue of an earlier boot kept: %d", v)
	}
	if id := bootID(); id != ([16]byte{}) {
		b, _ := os.ReadFile(path)
		if !bytes.Equal(b[48:64], id[:]) {
			t.Fatalf("boot id not updated")
		}
	}
}

func TestStateHeaderRoundTrip(t *testing.T) {
	h := stateHeader{layout: Layout{7, 64 << 10, 3}, cost: ServerCost{Latency: 1500 * time.Microsecond, Threads: 32, Bandwidth: 2.8e9}, boot: bootID()}
	got, err := decodeStateHeader(h.encode())
	if err != nil || got != h {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", h, got, err)
	}
}

func FuzzDecodeStateHeader(f *testing.F) {
	f.Add(stateHeader{layout: testLayout, cost: testCost}.encode())
	f.Add(stateHeader{layout: Layout{1, 4096, 1}, cost: ServerCost{Threads: 1}}.encode())
	f.Add([]byte(stateMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeStateHeader(b)
		if err != nil {
			if !errors.Is(err, ErrCorruptState) {
				t.Fatalf("error %v does not wrap ErrCorruptState", err)
			}
			return
		}
		l, c := h.layout, h.cost
		if l.Servers < 1 || l.Servers > MaxServers || l.StripeCount < 1 || l.StripeCount > l.Servers ||
			l.StripeSize < 1 || c.Threads < 1 || c.Latency < 0 || c.Bandwidth < 0 {
			t.Fatalf("accepted a header that makes no model: %+v", h)
		}
		// What decodes must encode to the same header.
		if again, err := decodeStateHeader(h.encode()); err != nil || again != h {
			t.Fatalf("re-encoding %+v gives %+v, %v", h, again, err)
		}
	})
}
