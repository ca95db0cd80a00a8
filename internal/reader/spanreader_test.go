package reader

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// writeTestFile writes size pseudo-random bytes to a new file in dir.
func writeTestFile(t testing.TB, dir string, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, uint64(size)))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	path := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestReadSpanMatchesReadFile(t *testing.T) {
	path, _ := writeTestFile(t, t.TempDir(), 1<<20+123)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Size() != int64(len(want)) {
		t.Fatalf("Size = %d, want %d", r.Size(), len(want))
	}
	rng := rand.New(rand.NewPCG(2, 3))
	var bytesRead int64
	for i := range 200 {
		off := rng.IntN(len(want))
		n := rng.IntN(len(want) - off + 1)
		dst := make([]byte, n)
		got, err := r.ReadSpan(dst, int64(off))
		if err != nil || got != n {
			t.Fatalf("read %d: ReadSpan(%d bytes at %d) = %d, %v", i, n, off, got, err)
		}
		if !bytes.Equal(dst, want[off:off+n]) {
			t.Fatalf("read %d: %d bytes at %d differ from the file", i, n, off)
		}
		bytesRead += int64(n)
	}
	st := r.Stats()
	if st.Bytes != bytesRead || st.Spans != 200 || st.Reads < 1 {
		t.Fatalf("Stats = %+v, want %d bytes in 200 spans", st, bytesRead)
	}
}

func TestReadSpanAtEndOfFile(t *testing.T) {
	const size = 10000
	path, data := writeTestFile(t, t.TempDir(), size)
	r, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		name   string
		off    int64
		len    int
		wantN  int
		wantAt int
	}{
		{"ends-exactly", size - 100, 100, 100, size - 100},
		{"past-end", size - 10, 100, 10, size - 10},
		{"at-end", size, 100, 0, size},
		{"beyond-end", size + 5000, 100, 0, size},
		{"empty", 7, 0, 0, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]byte, tc.len)
			n, err := r.ReadSpan(dst, tc.off)
			if err != nil || n != tc.wantN {
				t.Fatalf("ReadSpan = %d, %v; want %d, nil", n, err, tc.wantN)
			}
			if !bytes.Equal(dst[:n], data[tc.wantAt:tc.wantAt+n]) {
				t.Fatal("wrong bytes")
			}
		})
	}
	if _, err := r.ReadSpan(make([]byte, 1), -1); err == nil {
		t.Fatal("negative offset accepted")
	}
}

// TestReadSpanShortReads: a pread that returns a few bytes at a time, or is
// interrupted by a signal, must not shorten the span.
func TestReadSpanShortReads(t *testing.T) {
	path, data := writeTestFile(t, t.TempDir(), 5000)
	r, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	calls := 0
	r.pread = func(fd int, p []byte, off int64) (int, error) {
		calls++
		if calls%3 == 0 {
			return 0, syscall.EINTR
		}
		return syscall.Pread(fd, p[:min(len(p), 7)], off)
	}
	dst := make([]byte, 1000)
	n, err := r.ReadSpan(dst, 4100)
	if err != nil || n != 900 {
		t.Fatalf("ReadSpan = %d, %v; want 900 (the file ends)", n, err)
	}
	if !bytes.Equal(dst[:n], data[4100:]) {
		t.Fatal("wrong bytes")
	}
	if st := r.Stats(); st.Reads != 129 || st.Bytes != 900 {
		t.Fatalf("Stats = %+v, want 129 reads of 900 bytes", st)
	}

	r.pread = func(int, []byte, int64) (int, error) { return 0, syscall.EIO }
	if _, err := r.ReadSpan(dst, 0); !errors.Is(err, syscall.EIO) {
		t.Fatalf("I/O error = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing"), false); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := Open(dir, false); err == nil {
		t.Fatal("a directory was accepted")
	}
}

func TestAligned(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 3 * 4096, 1 << 20} {
		b := Aligned(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Aligned(%d): len %d cap %d", n, len(b), cap(b))
		}
		if n > 0 && !isAligned(b) {
			t.Fatalf("Aligned(%d) at %#x", n, addr(b))
		}
	}
}

// openDirect opens a test file with O_DIRECT, trying the temporary directory
// and then the package directory (the temporary directory may be a tmpfs,
// which has no direct I/O), and skips the test if neither allows it.
func openDirect(t *testing.T, size int) (*SpanReader, []byte) {
	t.Helper()
	var refusals []error
	for _, base := range []string{"", "."} {
		dir, err := os.MkdirTemp(base, "direct-test-")
		if err != nil {
			refusals = append(refusals, err)
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		path, data := writeTestFile(t, dir, size)
		r, err := Open(path, true)
		if errors.Is(err, ErrDirectUnsupported) {
			refusals = append(refusals, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r, data
	}
	t.Skipf("no directory here allows O_DIRECT: %v", errors.Join(refusals...))
	return nil, nil
}

func TestReadSpanDirect(t *testing.T) {
	const size = 5*Alignment + 1234 // the last block is partial
	r, data := openDirect(t, size)
	if !r.Direct() {
		t.Fatal("Direct() = false")
	}
	tests := []struct {
		name  string
		off   int64
		len   int
		wantN int
	}{
		{"first-block", 0, Alignment, Alignment},
		{"middle", Alignment, 3 * Alignment, 3 * Alignment},
		{"whole-file-rounded-up", 0, 6 * Alignment, size},
		{"last-block", 5 * Alignment, 2 * Alignment, 1234},
		{"past-end", 8 * Alignment, Alignment, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := Aligned(tc.len)
			n, err := r.ReadSpan(dst, tc.off)
			if err != nil || n != tc.wantN {
				t.Fatalf("ReadSpan = %d, %v; want %d, nil", n, err, tc.wantN)
			}
			if n > 0 && !bytes.Equal(dst[:n], data[tc.off:tc.off+int64(n)]) {
				t.Fatal("wrong bytes")
			}
		})
	}

	buf := Aligned(3 * Alignment)
	unaligned := []struct {
		name string
		dst  []byte
		off  int64
	}{
		{"address", buf[1 : 1+Alignment], 0},
		{"length", buf[:Alignment+512], 0},
		{"offset", buf[:Alignment], 512},
	}
	for _, tc := range unaligned {
		t.Run("unaligned-"+tc.name, func(t *testing.T) {
			if _, err := r.ReadSpan(tc.dst, tc.off); !errors.Is(err, ErrUnaligned) {
				t.Fatalf("ReadSpan = %v, want ErrUnaligned", err)
			}
		})
	}
}

// TestReadSpanStartsOnIOSize: where the file system prefers requests of
// 64 KiB, a span that crosses a multiple of it is read in two preads, the
// first ending on that multiple, so the rest starts there; a span that
// starts on one, or crosses none, is one pread. The bytes are the same.
func TestReadSpanStartsOnIOSize(t *testing.T) {
	path, data := writeTestFile(t, t.TempDir(), 1<<20)
	r, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.ioSize = 64 << 10
	var calls [][2]int64
	r.pread = func(fd int, p []byte, off int64) (int, error) {
		calls = append(calls, [2]int64{off, int64(len(p))})
		return syscall.Pread(fd, p, off)
	}
	for _, c := range []struct {
		off, n int64
		want   [][2]int64
	}{
		{4096, 200 << 10, [][2]int64{{4096, 60 << 10}, {64 << 10, 140 << 10}}},
		{128 << 10, 200 << 10, [][2]int64{{128 << 10, 200 << 10}}},
		{4096, 8192, [][2]int64{{4096, 8192}}},
		{60 << 10, 4 << 10, [][2]int64{{60 << 10, 4 << 10}}},
	} {
		calls = nil
		dst := make([]byte, c.n)
		if n, err := r.ReadSpan(dst, c.off); err != nil || int64(n) != c.n || !bytes.Equal(dst, data[c.off:c.off+c.n]) {
			t.Fatalf("ReadSpan(%d bytes at %d) = %d, %v or wrong bytes", c.n, c.off, n, err)
		}
		if !slices.Equal(calls, c.want) {
			t.Errorf("%d bytes at %d: preads (offset, length) %v, want %v", c.n, c.off, calls, c.want)
		}
	}
}

// TestPreferredIOSize: only a power of two above the page size, and not
// absurdly large, is a size to align to.
func TestPreferredIOSize(t *testing.T) {
	for blksize, want := range map[int64]int64{0: 0, 4096: 0, 1 << 20: 1 << 20, 4 << 20: 4 << 20, 3 << 20: 0, 1 << 30: 0} {
		st := &syscall.Stat_t{}
		setInt(&st.Blksize, blksize) // int64 or int32, by architecture
		if got := preferredIOSize(statInfo{st}); got != want {
			t.Errorf("st_blksize %d: preferred I/O size %d, want %d", blksize, got, want)
		}
	}
	if got := preferredIOSize(statInfo{nil}); got != 0 {
		t.Errorf("no stat: %d, want 0", got)
	}
}

func setInt[T int32 | int64](p *T, v int64) { *p = T(v) }

// statInfo is an os.FileInfo whose Sys is a given stat.
type statInfo struct{ st *syscall.Stat_t }

func (s statInfo) Name() string       { return "f" }
func (s statInfo) Size() int64        { return 0 }
func (s statInfo) Mode() os.FileMode  { return 0 }
func (s statInfo) ModTime() time.Time { return time.Time{} }
func (s statInfo) IsDir() bool        { return false }
func (s statInfo) Sys() any {
	if s.st == nil {
		return nil
	}
	return s.st
}
