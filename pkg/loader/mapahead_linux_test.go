//go:build linux

package loader

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/lmdbio/lmdbio/internal/shm"
	"golang.org/x/sys/unix"
)

// TestMapAhead: a learner's mapping of a cache segment, none of whose pages
// it touched, is in its page tables once mapAhead has run; close returns
// at once after.
func TestMapAhead(t *testing.T) {
	const size = 3*mapStep + 12345 // a last step shorter than the others
	seg, err := shm.CreateUnnamed(shm.JobID(), size, true)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	fd, err := unix.Dup(int(seg.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	learner, err := shm.OpenFile(os.NewFile(uintptr(fd), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer learner.Close()
	mem := learner.Bytes()
	if rss := mappedKiB(t, mem); rss > 64 {
		t.Fatalf("%d KiB mapped before mapAhead", rss)
	}
	m := startMapAhead(mem)
	<-m.done
	m.close()
	if rss, want := mappedKiB(t, mem), int64(size/1024); rss < want {
		t.Errorf("%d KiB of the learner's mapping in its page tables, want at least %d", rss, want)
	}
}

// TestMapAheadStops: close stops a mapping that has not finished.
func TestMapAheadStops(t *testing.T) {
	mem, err := unix.Mmap(-1, 0, 64*mapStep, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	m := startMapAhead(mem)
	m.close()
	select {
	case <-m.done:
	default:
		t.Fatal("close returned before the mapping stopped")
	}
	var nilAhead *mapAhead
	nilAhead.close() // no cache to map: nothing to stop
}

// mappedKiB is the resident size of the mapping that holds mem, from
// /proc/self/smaps.
func mappedKiB(t *testing.T, mem []byte) int64 {
	t.Helper()
	at := uint64(uintptr(unsafe.Pointer(&mem[0])))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uint64
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= at && at < hi
			continue
		}
		if rss, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rss), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib
		}
	}
	t.Fatal("the mapping is not in /proc/self/smaps")
	return 0
}

// TestMapsAheadBound: learners map a cache ahead only while their page
// tables take at most an eighth of the memory kept for them.
func TestMapsAheadBound(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		learners    int
		cache, node int64
		want        bool
	}{
		{8, 2 * gib, 24 * gib, true},          // this machine's bench: 32 MiB of page tables
		{36, 50 * gib, 192 * gib, true},       // 3.5 GiB of 48 kept
		{36, 100 * gib, 192 * gib, false},     // 7 GiB of 48 kept
		{64, 100 * gib, 4 * gib, false},       // a small node keeps 2 GiB
		{1, 512 * 2 * gib, 64 * gib, true},    // exactly an eighth of 16 kept
		{1, 512*2*gib + 512, 64 * gib, false}, // one page-table entry more
	} {
		if got := pageTablesFit(c.learners, c.cache, c.node); got != c.want {
			t.Errorf("%d learners, cache %d GiB, node %d GiB: %v, want %v", c.learners, c.cache/gib, c.node/gib, got, c.want)
		}
	}
}
