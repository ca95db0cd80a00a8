package emu

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestEmulatorRead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes
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
		buf := make([]byte, tt.size)
		n, errno := e.read(context.Background(), fd, 0, buf, tt.off)
		if errno != 0 || n != tt.n {
			t.Fatalf("read(%d at %d) = %d, %v; want %d", tt.size, tt.off, n, errno, tt.n)
		}
		if !bytes.Equal(buf[:n], data[tt.off:tt.off+int64(n)]) {
			t.Fatalf("read(%d at %d): wrong bytes", tt.size, tt.off)
		}
		bytesWant += int64(n)
	}
	s := e.c.snapshot(now, now)
	if s.Requests != int64(len(tests)) || s.Bytes != bytesWant || s.Largest != 4096 || s.Errors != 0 {
		t.Fatalf("stats %+v: want %d requests, %d bytes, largest 4096", s, len(tests), bytesWant)
	}

	if _, errno := e.read(context.Background(), -1, 0, make([]byte, 10), 0); errno != syscall.EBADF {
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
	if _, errno := e.read(ctx, fd, 0, make([]byte, 100), 0); errno != syscall.EINTR {
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
		if _, errno := e.read(context.Background(), fd, 0, make([]byte, 1000), 0); errno != 0 {
			t.Fatal(errno)
		}
	}
	// 5000 bytes, 1000 free: 4000 ns of debt, charged 1+2+3+4 µs.
	if got, want := time.Duration(e.c.throttledNs.Load()), 10*time.Microsecond; got != want {
		t.Fatalf("throttled %v, want %v", got, want)
	}
}
