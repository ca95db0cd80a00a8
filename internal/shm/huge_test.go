//go:build linux

package shm

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/shm/shmtest"
	"golang.org/x/sys/unix"
)

// hugeMount points the package at a hugetlbfs of the test's own with at
// least pages huge pages free, and returns the huge page size.
func hugeMount(t *testing.T, pages int64) int64 {
	t.Helper()
	mnt := shmtest.HugeDir(t, pages)
	saved := dir
	dir = mnt
	t.Cleanup(func() { dir = saved })
	return shmtest.HugePageSize
}

// TestHugeSegment: a segment on hugetlbfs has the size asked for, takes
// whole huge pages from the pool, is written through its mapping (the file
// system refuses write(2)) and read by another mapping of its descriptor.
func TestHugeSegment(t *testing.T) {
	page := hugeMount(t, 4)
	freeBefore, huge, err := Free()
	if err != nil {
		t.Fatal(err)
	}
	if !huge {
		t.Fatal("Free() says a hugetlbfs has no huge pages")
	}
	size := page + page/2 + 5 // with the header: 2 huge pages
	s, err := CreateUnnamed("hugejob", size, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := int64(len(s.Bytes())); got != size {
		t.Fatalf("Bytes() has %d bytes, want %d", got, size)
	}
	if st, err := s.file.Stat(); err != nil || st.Size() != 2*page {
		t.Fatalf("file size %v (%v), want %d", st.Size(), err, 2*page)
	}
	if freeAfter, _, err := Free(); err != nil || freeBefore-freeAfter != 2*page {
		t.Fatalf("the pool's free bytes went from %d to %d (%v), want 2 pages less", freeBefore, freeAfter, err)
	}
	want := bytes.Repeat([]byte("lmdbio"), 1000)
	off := page - HeaderSize - 100 // across the first huge page's end
	if n, err := s.WriteAt(want, off); err != nil || n != len(want) {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	got := make([]byte, len(want))
	if n, err := s.ReadAt(got, off); err != nil || n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("ReadAt: %d, %v, equal %v", n, err, bytes.Equal(got, want))
	}
	r := openDup(t, s)
	if !bytes.Equal(r.Bytes()[off:off+int64(len(want))], want) || int64(len(r.Bytes())) != size {
		t.Fatalf("another mapping sees %d bytes, or other bytes", len(r.Bytes()))
	}
}

// TestHugeNoSpace: asking more than the pool has free is ErrNoSpace, in
// whole huge pages and naming the pool, before any page is taken.
func TestHugeNoSpace(t *testing.T) {
	page := hugeMount(t, 1)
	free, _, err := Free()
	if err != nil {
		t.Fatal(err)
	}
	err = CheckFree(free + 1)
	var ns *NoSpaceError
	if !errors.As(err, &ns) || ns.Need != free+page || ns.Free != free {
		t.Fatalf("CheckFree(free+1) = %v, want a NoSpaceError for %d bytes", err, free+page)
	}
	if !strings.Contains(err.Error(), "vm.nr_hugepages") {
		t.Errorf("%q does not name the pool", err)
	}
	if _, err := CreateUnnamed("hugejob", free, true); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("CreateUnnamed of the free bytes and a header: %v, want ErrNoSpace", err)
	}
	if after, _, err := Free(); err != nil || after != free {
		t.Fatalf("free went from %d to %d (%v)", free, after, err)
	}
}

// TestReserveInterrupted: the Go runtime signals its threads often, and
// hugetlbfs (as tmpfs) stops reserving on a pending signal: reserving goes
// on where it stopped instead of failing (it failed node readers with
// "interrupted system call"). Signals are sent here as fast as they go.
func TestReserveInterrupted(t *testing.T) {
	hugeMount(t, 64)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				unix.Kill(os.Getpid(), unix.SIGURG) // the runtime's own preemption signal
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 8 {
		s, err := CreateUnnamed("hugejob", 120<<20, false)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}
