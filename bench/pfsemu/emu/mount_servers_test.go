package emu

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMountServersShared checks that a mount with a server state file
// queues its reads behind work other clients put on the same servers: a
// backlog reserved through another mapping of the file (as another pfsemu
// would) delays a read through the mount by at least that backlog, and the
// mount's counters say where the time went.
func TestMountServersShared(t *testing.T) {
	needFUSE(t)
	src, mnt, data := testTree(t, 64<<10)
	state := filepath.Join(t.TempDir(), "servers")
	opt := Options{Servers: 2, StripeSize: 16 << 10, ServerLatency: 40 * ms, ServerThreads: 1,
		ServerState: state, DirectIO: true}
	s := mountForTest(t, src, mnt, opt)

	// Another client's backlog: 8 requests of 40 ms on each server. The
	// clock starts before it is reserved, so the read cannot end sooner
	// than 320 ms of backlog and its own 40 ms after start, however slowly
	// this machine gets to the read.
	other, err := OpenServerState(state, opt.withDefaults().layout(), opt.withDefaults().serverCost())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	others := NewServers(opt.withDefaults().layout(), opt.withDefaults().serverCost(), other)
	start := time.Now()
	for range 8 {
		others.Serve(0, 0, 0, nil)
		others.Serve(0, 16<<10, 0, nil)
	}

	f, err := os.OpenFile(filepath.Join(mnt, "sub", "data"), os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := alignedBuf(4096)
	if _, err := f.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data[:4096]) {
		t.Fatalf("read: %v or wrong bytes", err)
	}
	if took := time.Since(start); took < 360*ms {
		t.Fatalf("read took %v behind a 320 ms backlog of another client; want at least 360ms", took)
	}
	// The read queued for what was left of the backlog when it arrived:
	// most of it, unless getting to the read took this machine 160 ms.
	st := s.Stats()
	if st.QueuedS < 0.16 || st.ServerS < st.QueuedS+0.039 {
		t.Fatalf("stats: server_s %.3f, queued_s %.3f; want queued >= 0.16 s and 40 ms more at the server", st.ServerS, st.QueuedS)
	}
	var pieces int64
	for _, n := range st.PerServer {
		pieces += n
	}
	if len(st.PerServer) != 2 || pieces != st.Requests {
		t.Fatalf("per_server %v: want 2 servers counting all %d requests", st.PerServer, st.Requests)
	}
	if want := "2 servers (stripe 16KiB over all; 40ms per request, 1 at once, unlimited each)"; st.Servers != want {
		t.Fatalf("servers %q, want %q", st.Servers, want)
	}
}

// TestMountServerStateMismatch checks that a mount refuses a state file
// made for another file system, before mounting.
func TestMountServerStateMismatch(t *testing.T) {
	needFUSE(t)
	src, mnt, _ := testTree(t, 100)
	state := filepath.Join(t.TempDir(), "servers")
	mountForTest(t, src, mnt, Options{Servers: 2, ServerState: state})
	_, mnt2, _ := testTree(t, 100)
	if _, err := Mount(src, mnt2, Options{Servers: 3, ServerState: state}); err == nil {
		t.Fatal("a mount with 3 servers accepted a state file of 2")
	}
	if mounted(t, mnt2) {
		t.Fatal("the refused mount is in the mount table")
	}
}

// TestMountBlksizeIsStripe checks that with servers a file's preferred I/O
// size (st_blksize, through stat, statx and fstat alike) is the stripe
// size, so that a reader can start its requests on stripe boundaries, and
// that a directory's is left alone.
func TestMountBlksizeIsStripe(t *testing.T) {
	needFUSE(t)
	src, mnt, _ := testTree(t, 100)
	mountForTest(t, src, mnt, Options{Servers: 2, StripeSize: 256 << 10})
	path := filepath.Join(mnt, "sub", "data")
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || st.Blksize != 256<<10 {
		t.Fatalf("stat: blksize %d, %v; want the stripe size, 262144", st.Blksize, err)
	}
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_BASIC_STATS, &sx); err != nil || sx.Blksize != 256<<10 {
		t.Fatalf("statx: blksize %d, %v; want 262144", sx.Blksize, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Blksize != 256<<10 {
		t.Fatalf("fstat: blksize %d, %v; want 262144", st.Blksize, err)
	}
	var dir syscall.Stat_t
	if err := syscall.Stat(filepath.Join(mnt, "sub"), &dir); err != nil || dir.Blksize == 256<<10 {
		t.Fatalf("directory: blksize %d, %v; want the source's", dir.Blksize, err)
	}
}
