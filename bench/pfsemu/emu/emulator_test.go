package emu

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/splice"
)

// TestEmulatorRead checks the size of the replies, short at the end of the
// file, and the counters. The bytes themselves go out when go-fuse writes
// the reply: the mount tests check them.
func TestEmulatorRead(t *testing.T) {
	data := make([]byte, 16000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)

	// A fake clock that never advances by itself: the bucket's waits are
	// then exactly the debt, and no sleep is needed when the bandwidth is
	// unlimited.
	now := time.Unix(0, 0)
	e := &emulator{now: func() time.Time { return now }}
	tests := []struct {
		size, off int64
		n         int
	}{{4096, 0, 4096}, {4096, 12000, 4000}, {100, 15999, 1}, {4096, 16000, 0}, {0, 0, 0}}
	var bytesWant int64
	for _, tt := range tests {
		n, errno := e.read(context.Background(), fd, 0, int(tt.size), tt.off)
		if errno != 0 || n != tt.n {
			t.Fatalf("read(%d at %d) = %d, %v; want %d", tt.size, tt.off, n, errno, tt.n)
		}
		bytesWant += int64(n)
	}
	s := e.c.snapshot(now, now)
	if s.Requests != int64(len(tests)) || s.Bytes != bytesWant || s.Largest != 4096 || s.Errors != 0 {
		t.Fatalf("stats %+v: want %d requests, %d bytes, largest 4096", s, len(tests), bytesWant)
	}

	if _, errno := e.read(context.Background(), -1, 0, 10, 0); errno != syscall.EBADF {
		t.Fatalf("read of a bad fd: errno %v, want EBADF", errno)
	}
	if e.c.errors.Load() != 1 {
		t.Fatalf("errors = %d, want 1", e.c.errors.Load())
	}
}

// TestEmulatorReadInterrupted checks that a request waiting out its cost
// returns EINTR when the kernel interrupts it, instead of sleeping on.
func TestEmulatorReadInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	e := &emulator{latency: time.Hour, now: time.Now}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, errno := e.read(ctx, fd, 0, 100, 0); errno != syscall.EINTR {
		t.Fatalf("interrupted read: errno %v, want EINTR", errno)
	}
}

// TestEmulatorThrottles checks that reads through a bucket are charged to
// it: with a fake clock the waits add up to bytes/rate minus the burst.
func TestEmulatorThrottles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	t0 := time.Unix(0, 0)
	now := t0
	// The fake clock stands still, so the debt of each read adds up; the
	// real sleeps are microseconds at 1e9 B/s.
	e := &emulator{now: func() time.Time { return now }, bucket: NewBucket(1e9, 1000, t0)}
	for range 5 {
		if _, errno := e.read(context.Background(), fd, 0, 1000, 0); errno != 0 {
			t.Fatal(errno)
		}
	}
	// 5000 bytes, 1000 free: 4000 ns of debt, charged 1+2+3+4 µs.
	if got, want := time.Duration(e.c.throttledNs.Load()), 10*time.Microsecond; got != want {
		t.Fatalf("throttled %v, want %v", got, want)
	}
}

// TestSpliceFits checks the pipe a spliced reply needs: more than the
// request, so a limit equal to the request is too small (as 1 MiB requests
// are for the default pipe-max-size of 1 MiB), while one page always fits.
func TestSpliceFits(t *testing.T) {
	if !splice.Resizable() {
		t.Skip("pipes cannot be resized here")
	}
	limit := int64(splice.MaxPipeSize())
	if !SpliceFits(4096) {
		t.Errorf("a 4 KiB reply does not fit pipes of %d bytes", limit)
	}
	if SpliceFits(limit) {
		t.Errorf("a reply of %d bytes fits pipes of %d bytes, with its header and a spare page", limit, limit)
	}
	if got := replyPipe(1 << 20); got <= 1<<20 || got > 1<<20+2*int64(os.Getpagesize()) {
		t.Errorf("a 1 MiB reply needs a pipe of %d bytes", got)
	}
}
