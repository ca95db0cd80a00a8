package emu

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// needFUSE skips a test that mounts unless it runs as root with /dev/fuse.
func needFUSE(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
}

// mounted reports whether the mount table lists a mount at path.
func mounted(t *testing.T, path string) bool {
	t.Helper()
	_, ok, err := MountAt(path)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// testTree makes a source directory with one file of random bytes and an
// empty mount point.
func testTree(t *testing.T, size int) (src, mnt string, data []byte) {
	t.Helper()
	dir := t.TempDir()
	src, mnt = filepath.Join(dir, "src"), filepath.Join(dir, "mnt")
	for _, d := range []string{src, filepath.Join(src, "sub"), mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data = make([]byte, size)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(data)
	if err := os.WriteFile(filepath.Join(src, "sub", "data"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return src, mnt, data
}

func mountForTest(t *testing.T, src, mnt string, opt Options) *Server {
	t.Helper()
	s, err := Mount(src, mnt, opt)
	if err != nil {
		t.Fatalf("Mount: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
		}
	})
	return s
}

func TestMountReads(t *testing.T) {
	needFUSE(t)
	const maxReq = 256 << 10
	src, mnt, data := testTree(t, 3<<20+12345)
	opt := Options{Latency: 100 * time.Microsecond, MaxRequest: maxReq, Readahead: 512 << 10, Bandwidth: 10e9}
	s := mountForTest(t, src, mnt, opt)
	if !mounted(t, s.Mountpoint()) {
		t.Fatalf("%s not in the mount table", s.Mountpoint())
	}
	// The readahead above the kernel's 128 KiB default must have been set
	// through sysfs.
	if s.Readahead() != 512<<10 {
		t.Errorf("Readahead() = %d, want %d", s.Readahead(), 512<<10)
	}
	if ra, err := readReadahead(s.Bdi()); err != nil || ra != 512<<10 {
		t.Errorf("bdi %s readahead %d, %v; want 512KiB", s.Bdi(), ra, err)
	}
	path := filepath.Join(mnt, "sub", "data")

	t.Run("ReadFile", func(t *testing.T) {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadFile: %d bytes, %v; want the source's %d bytes", len(got), err, len(data))
		}
	})
	t.Run("pread", func(t *testing.T) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, c := range []struct{ off, n int64 }{{0, 10}, {4095, 2}, {1 << 20, 1 << 20}, {int64(len(data)) - 7, 7}, {12345, 300000}} {
			buf := make([]byte, c.n)
			if _, err := f.ReadAt(buf, c.off); err != nil || !bytes.Equal(buf, data[c.off:c.off+c.n]) {
				t.Fatalf("ReadAt(%d, %d): %v or wrong bytes", c.n, c.off, err)
			}
		}
	})
	t.Run("mmap", func(t *testing.T) { mmapInChild(t, path, filepath.Join(src, "sub", "data")) })
	t.Run("O_DIRECT", func(t *testing.T) {
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0)
		if err != nil {
			t.Fatalf("open with O_DIRECT: %v", err)
		}
		defer f.Close()
		before := s.Stats()
		buf := alignedBuf(1 << 20)
		if _, err := f.ReadAt(buf, 1<<20); err != nil || !bytes.Equal(buf, data[1<<20:2<<20]) {
			t.Fatalf("O_DIRECT ReadAt: %v or wrong bytes", err)
		}
		after := s.Stats()
		// Uncached: the read reaches the server, split at the request limit.
		if after.Requests-before.Requests < (1<<20)/maxReq || after.DirectOpens != 1 {
			t.Fatalf("O_DIRECT read of 1 MiB: %d requests (want >= %d), %d direct opens (want 1)",
				after.Requests-before.Requests, (1<<20)/maxReq, after.DirectOpens)
		}
		if after.Largest != maxReq {
			t.Fatalf("largest request %d, want the limit %d", after.Largest, maxReq)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		for name, op := range map[string]func() error{
			"write":  func() error { return os.WriteFile(path, []byte("x"), 0o644) },
			"create": func() error { return os.WriteFile(filepath.Join(mnt, "new"), []byte("x"), 0o644) },
			"remove": func() error { return os.Remove(path) },
		} {
			if err := op(); !errors.Is(err, syscall.EROFS) {
				t.Errorf("%s: %v, want EROFS", name, err)
			}
		}
	})

	st := s.Stats()
	if st.Requests == 0 || st.Bytes < int64(len(data)) || st.Opens == 0 || st.Errors != 0 {
		t.Fatalf("stats %+v: want requests, at least %d bytes, opens and no errors", st, len(data))
	}
	if st.Largest > maxReq {
		t.Fatalf("largest request %d exceeds max request %d", st.Largest, maxReq)
	}
	var binned int64
	for _, b := range st.Sizes {
		binned += b.Count
		if b.Max > maxReq {
			t.Errorf("histogram bin up to %d above the max request %d", b.Max, maxReq)
		}
	}
	if binned != st.Requests {
		t.Fatalf("histogram holds %d requests, counter %d", binned, st.Requests)
	}

	if err := s.Unmount(); err != nil {
		t.Fatal(err)
	}
	if mounted(t, s.Mountpoint()) {
		t.Fatalf("%s still mounted after Unmount", s.Mountpoint())
	}
	if err := s.Unmount(); err != nil {
		t.Fatalf("second Unmount: %v", err)
	}
}

// TestMountDirectIO checks the --direct-io mode: reads are uncached, and
// mmap still works (the kernel grants DIRECT_IO_ALLOW_MMAP since 6.6).
func TestMountDirectIO(t *testing.T) {
	needFUSE(t)
	src, mnt, data := testTree(t, 300000)
	s := mountForTest(t, src, mnt, Options{DirectIO: true})
	path := filepath.Join(mnt, "sub", "data")
	for i := range 2 {
		before := s.Stats().Bytes
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadFile %d: %v or wrong bytes", i, err)
		}
		if served := s.Stats().Bytes - before; served < int64(len(data)) {
			t.Fatalf("ReadFile %d: server saw %d bytes, want all %d (no caching)", i, served, len(data))
		}
	}
	mmapInChild(t, path, filepath.Join(src, "sub", "data"))
}

// TestUnmountBusy checks that a mount with an open file is still removed
// from the mount table.
func TestUnmountBusy(t *testing.T) {
	needFUSE(t)
	src, mnt, _ := testTree(t, 1000)
	s, err := Mount(src, mnt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(mnt, "sub", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Unmount(); err != nil {
		t.Fatalf("Unmount while busy: %v", err)
	}
	if mounted(t, s.Mountpoint()) {
		t.Fatal("busy mount left in the mount table")
	}
	f.Close() // the detached file system goes away with its last user
}

// TestCleanStale makes a FUSE mount whose server is gone and checks that
// Mount detaches it and mounts in its place.
func TestCleanStale(t *testing.T) {
	needFUSE(t)
	src, mnt, data := testTree(t, 5000)
	fd, err := syscall.Open("/dev/fuse", syscall.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0", fd)
	if err := syscall.Mount("stale", mnt, "fuse.stale", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		syscall.Close(fd)
		t.Fatalf("make a FUSE mount: %v", err)
	}
	syscall.Close(fd) // the server dies: the mount is now stale
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	var st syscall.Stat_t
	if err := syscall.Stat(mnt, &st); !errors.Is(err, syscall.ENOTCONN) {
		t.Fatalf("stat of the stale mount: %v, want ENOTCONN", err)
	}

	s := mountForTest(t, src, mnt, Options{})
	got, err := os.ReadFile(filepath.Join(mnt, "sub", "data"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read after replacing a stale mount: %v or wrong bytes", err)
	}
	if err := s.Unmount(); err != nil {
		t.Fatal(err)
	}
	if mounted(t, s.Mountpoint()) {
		t.Fatal("mount left behind")
	}
}

// TestMountRefusesLiveMount checks that a live mount point is not taken over.
func TestMountRefusesLiveMount(t *testing.T) {
	needFUSE(t)
	src, mnt, _ := testTree(t, 10)
	mountForTest(t, src, mnt, Options{})
	if _, err := Mount(src, mnt, Options{}); err == nil {
		t.Fatal("second Mount on a live mount point succeeded")
	}
}

func TestMountBadArguments(t *testing.T) {
	needFUSE(t)
	src, mnt, _ := testTree(t, 10)
	file := filepath.Join(src, "sub", "data")
	for _, c := range []struct{ src, mnt string }{
		{filepath.Join(src, "missing"), mnt}, {file, mnt}, {src, file}, {src, filepath.Join(mnt, "missing")},
	} {
		if s, err := Mount(c.src, c.mnt, Options{}); err == nil {
			s.Unmount()
			t.Errorf("Mount(%s, %s) succeeded", c.src, c.mnt)
		}
	}
	if _, err := Mount(src, mnt, Options{MaxRequest: 1000}); !errors.Is(err, ErrOption) {
		t.Errorf("Mount with a bad option: %v, want ErrOption", err)
	}
}

// childEnv and childWantEnv turn the test binary into an mmap client of the
// mounted file childEnv, to compare with the source file childWantEnv.
const (
	childEnv     = "PFSEMU_TEST_MMAP"
	childWantEnv = "PFSEMU_TEST_MMAP_WANT"
)

// TestMain runs the mmap client when asked to.
func TestMain(m *testing.M) {
	if path, ok := os.LookupEnv(childEnv); ok {
		if err := mmapCompare(path, os.Getenv(childWantEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mmapInChild checks, in a child process, that mapping path gives the bytes
// of the file want. A page fault on a FUSE file must not happen in the
// process that serves it: the faulting goroutine cannot be preempted, so the
// garbage collector's stop-the-world would wait for it while it waits for
// the server goroutines, which are stopped.
func mmapInChild(t *testing.T, path, want string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path, childWantEnv+"="+want)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mmap client: %v: %s", err, out)
	}
}

// mmapCompare maps path read-only and shared, as liblmdb does, and compares
// it with the file want.
func mmapCompare(path, want string) error {
	data, err := os.ReadFile(want)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, len(data), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %s: %w", path, err)
	}
	defer syscall.Munmap(m)
	if !bytes.Equal(m, data) {
		return fmt.Errorf("mmap %s: bytes differ from %s", path, want)
	}
	return nil
}

// alignedBuf returns n bytes aligned for O_DIRECT.
func alignedBuf(n int) []byte {
	const align = 4096
	b := make([]byte, n+align)
	off := int(align-uintptr(unsafe.Pointer(&b[0]))%align) % align
	return b[off : off+n]
}
