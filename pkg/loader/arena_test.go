package loader

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestArenaWaits: an alloc with no gap large enough waits for releases,
// and only the release of a region's last batch frees it.
func TestArenaWaits(t *testing.T) {
	a := newArena(4 * alignment)
	ctx := context.Background()
	off1, err := a.alloc(ctx, 2*alignment, 0, []uint64{1, 2})
	if err != nil || off1 != 0 {
		t.Fatalf("first alloc at %d, %v", off1, err)
	}
	off2, err := a.alloc(ctx, 100, 0, []uint64{3})
	if err != nil || off2 != 2*alignment {
		t.Fatalf("second alloc at %d, %v", off2, err)
	}
	// 2 pages requested, 1 free at the end: must wait for the first region.
	got := make(chan int64)
	go func() {
		off, err := a.alloc(ctx, 2*alignment, 0, []uint64{4})
		if err != nil {
			t.Error(err)
		}
		got <- off
	}()
	select {
	case off := <-got:
		t.Fatalf("alloc succeeded at %d while the arena was full", off)
	case <-time.After(50 * time.Millisecond):
	}
	_ = a.release(3) // frees a page next to the free one at the end
	_ = a.release(1)
	select {
	case off := <-got:
		if off != 2*alignment {
			t.Fatalf("alloc at %d after batch 3 was released, want %d", off, 2*alignment)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("alloc still blocked after releases")
	}
	if err := a.release(99); err == nil {
		t.Error("release of unknown batch: want error")
	}
}

func TestArenaTooBig(t *testing.T) {
	a := newArena(alignment)
	if _, err := a.alloc(context.Background(), alignment+1, 0, []uint64{1}); err == nil {
		t.Fatal("want error for a region larger than the arena")
	}
	if _, err := a.alloc(context.Background(), 1, 0, nil); err == nil {
		t.Fatal("want error for a region no batch frees")
	}
}

func TestArenaCancel(t *testing.T) {
	a := newArena(alignment)
	if _, err := a.alloc(context.Background(), alignment, 0, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := a.alloc(ctx, 1, 0, []uint64{2}); err == nil {
		t.Fatal("want context error")
	}
}

// TestArenaWrapWhenEmpty: a region that does not fit before the end of an
// empty arena starts over at its beginning instead of waiting forever.
func TestArenaWrapWhenEmpty(t *testing.T) {
	a := newArena(3 * alignment)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := a.alloc(ctx, 2*alignment, 0, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	_ = a.release(1)
	off, err := a.alloc(ctx, 2*alignment, 0, []uint64{2})
	if err != nil || off != 0 {
		t.Fatalf("alloc after wrap at %d, %v; want 0", off, err)
	}
}

// TestArenaReusesLowPages: a region goes at the lowest offset where it
// fits, before pages no window used yet.
func TestArenaReusesLowPages(t *testing.T) {
	a := newArena(8 * alignment)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	want := func(n int64, id uint64, at int64) {
		t.Helper()
		off, err := a.alloc(ctx, n, 0, []uint64{id})
		if err != nil || off != at {
			t.Fatalf("alloc of %d bytes for batch %d at %d, %v; want %d", n, id, off, err, at)
		}
	}
	want(2*alignment, 1, 0)
	want(2*alignment, 2, 2*alignment)
	want(3*alignment, 3, 4*alignment)
	_ = a.release(1)
	want(alignment, 4, 0)
	want(alignment, 5, alignment)
	want(alignment, 6, 7*alignment) // the start is full: the end still has a page
	_ = a.release(2)
	_ = a.release(4)
	want(2*alignment, 7, 2*alignment) // too large for the page at 0
	want(alignment, 8, 0)
}

// TestArenaReservesAsItGrows: the buffer's pages are reserved only as far
// as regions reach, each once; a reservation that fails is the alloc's
// error and leaves no region behind.
func TestArenaReservesAsItGrows(t *testing.T) {
	a := newArena(8 * alignment)
	var asked [][2]int64
	fail := false
	a.reserve = func(off, n int64) error {
		if fail {
			return errors.New("no space")
		}
		asked = append(asked, [2]int64{off, n})
		return nil
	}
	ctx := context.Background()
	for id, n := range []int64{2 * alignment, alignment} {
		if _, err := a.alloc(ctx, n, 0, []uint64{uint64(id)}); err != nil {
			t.Fatal(err)
		}
	}
	_ = a.release(0)
	if _, err := a.alloc(ctx, alignment, 0, []uint64{2}); err != nil { // below the reserved end
		t.Fatal(err)
	}
	want := [][2]int64{{0, 2 * alignment}, {2 * alignment, alignment}}
	if !slices.Equal(asked, want) {
		t.Errorf("reserved %v, want %v", asked, want)
	}
	fail = true
	if _, err := a.alloc(ctx, 4*alignment, 0, []uint64{3}); err == nil {
		t.Fatal("alloc past the reserved end succeeded although reserving failed")
	}
	fail = false
	if off, err := a.alloc(ctx, 5*alignment, 0, []uint64{4}); err != nil || off != 3*alignment {
		t.Fatalf("alloc after a failed one at %d, %v; want %d: the failed one left a region", off, err, 3*alignment)
	}
}

// TestArenaLeavesLoadedBytesToLoads: alloc reserves only what follows a
// region's loaded bytes; a load's ensure reserves its own pages, and
// nothing is reserved twice.
func TestArenaLeavesLoadedBytesToLoads(t *testing.T) {
	a := newArena(8 * alignment)
	var asked [][2]int64
	a.reserve = func(off, n int64) error {
		asked = append(asked, [2]int64{off, n})
		return nil
	}
	ctx := context.Background()
	if _, err := a.alloc(ctx, 4*alignment, 3*alignment, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{alignment, alignment}, {0, 3*alignment - 10}, {0, 4 * alignment}} {
		if err := a.ensure(r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := [][2]int64{{3 * alignment, alignment}, {alignment, alignment}, {0, alignment}, {2 * alignment, alignment}}
	if !slices.Equal(asked, want) {
		t.Errorf("reserved %v, want %v", asked, want)
	}
	failed := errors.New("no space")
	a.reserve = func(off, n int64) error { return failed }
	if err := a.ensure(4*alignment, 1); !errors.Is(err, failed) {
		t.Errorf("ensure of a page that cannot be reserved: %v, want %v", err, failed)
	}
}
