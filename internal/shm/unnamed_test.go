//go:build linux

package shm

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// tmpfsDir mounts a small tmpfs as the segment directory (root only), so
// the tests see exactly which files a segment leaves.
func tmpfsDir(t *testing.T, size string) string {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	saved := dir
	dir = mnt
	t.Cleanup(func() { dir = saved })
	return mnt
}

// TestUnnamedLeavesNothing: an unnamed segment is never visible in the
// directory, its descriptor maps the same memory in another mapping, and
// its space counts against the file system.
func TestUnnamedLeavesNothing(t *testing.T) {
	mnt := tmpfsDir(t, "4m")
	s, err := CreateUnnamed("job1", 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
		t.Fatalf("unnamed segment left %v", entries)
	}
	copy(s.Bytes(), "hello")
	r := openDup(t, s)
	if string(r.Bytes()[:5]) != "hello" || r.Info().Size != 1<<20 || r.Info().Job != "job1" {
		t.Fatalf("reader sees %q, info %+v", r.Bytes()[:5], r.Info())
	}
	if _, err := CreateUnnamed("job1", 4<<20, false); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a second segment beyond the tmpfs: %v, want ErrNoSpace", err)
	}
}

func TestOpenFileRefusesOtherFiles(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, HeaderSize+10))
	if _, err := OpenFile(f); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("a file of zeros: %v", err)
	}
	g, _ := os.Open(os.DevNull)
	if _, err := OpenFile(g); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("/dev/null: %v", err)
	}
}

// TestUnnamedLazy: a lazy segment reserves nothing but its header at
// creation; when others took the room meanwhile, Reserve reports the
// shortage as ErrNoSpace.
func TestUnnamedLazy(t *testing.T) {
	tmpfsDir(t, "5m")
	s, err := CreateUnnamed("lazy", 4<<20, true)
	if err != nil {
		t.Fatalf("a lazy 4 MiB segment in a 5 MiB tmpfs: %v", err)
	}
	defer s.Close()
	other, err := CreateUnnamed("other", 3<<20, false)
	if err != nil {
		t.Fatalf("a 3 MiB segment beside the lazy one: %v", err)
	}
	defer other.Close()
	if err := s.Reserve(0, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(1<<20, 3<<20); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("reserving past the tmpfs: %v, want ErrNoSpace", err)
	}
}

// TestReadAt: a segment's ReadAt gives the bytes its mapping holds and
// WriteAt puts bytes its mapping then shows, through its descriptor or
// without one; both refuse bytes past the data region.
func TestReadAt(t *testing.T) {
	unnamed, err := CreateUnnamed("readat", 3<<12, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unnamed.Close()
	named, err := Create(Name("readat", "t"), 3<<12)
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	defer named.Unlink()
	for name, s := range map[string]*Segment{"unnamed": unnamed, "named": named} {
		data := s.Bytes()
		for i := range data {
			data[i] = byte(i*7 + i>>12)
		}
		got := make([]byte, 5000)
		if n, err := s.ReadAt(got, 3000); err != nil || n != len(got) || !bytes.Equal(got, data[3000:8000]) {
			t.Errorf("%s: ReadAt(5000 bytes at 3000) = %d, %v, bytes equal %v", name, n, err, bytes.Equal(got, data[3000:8000]))
		}
		for _, off := range []int64{-1, int64(len(data)) - 10, int64(len(data)) + 1} {
			if _, err := s.ReadAt(make([]byte, 20), off); err == nil {
				t.Errorf("%s: ReadAt(20 bytes at %d) of %d bytes: no error", name, off, len(data))
			}
			if _, err := s.WriteAt(make([]byte, 20), off); err == nil {
				t.Errorf("%s: WriteAt(20 bytes at %d) of %d bytes: no error", name, off, len(data))
			}
		}
		put := bytes.Repeat([]byte("lmdbio"), 1000)
		want := append(append(bytes.Clone(data[:5000]), put...), data[5000+len(put):]...)
		if n, err := s.WriteAt(put, 5000); err != nil || n != len(put) || !bytes.Equal(data, want) {
			t.Errorf("%s: WriteAt(%d bytes at 5000) = %d, %v; the mapping shows them: %v", name, len(put), n, err, bytes.Equal(data, want))
		}
	}
}

// openDup maps s again, as a learner does, through a copy of its
// descriptor; the test closes it.
func openDup(t *testing.T, s *Segment) *Segment {
	t.Helper()
	fd, err := unix.Dup(int(s.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenFile(os.NewFile(uintptr(fd), "dup"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
