package loader

import (
	"context"
	"testing"
	"time"
)

func TestArenaFIFO(t *testing.T) {
	a := newArena(4 * alignment)
	ctx := context.Background()
	off1, err := a.alloc(ctx, 2*alignment, []uint64{1, 2})
	if err != nil || off1 != 0 {
		t.Fatalf("first alloc at %d, %v", off1, err)
	}
	off2, err := a.alloc(ctx, 100, []uint64{3})
	if err != nil || off2 != 2*alignment {
		t.Fatalf("second alloc at %d, %v", off2, err)
	}
	// 2 pages requested, 1 free at the end: must wait for the first region.
	got := make(chan int64)
	go func() {
		off, err := a.alloc(ctx, 2*alignment, []uint64{4})
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
	_ = a.release(3) // a younger region freed first does not help: FIFO
	_ = a.release(1)
	select {
	case off := <-got:
		t.Fatalf("alloc succeeded at %d before batch 2 was released", off)
	case <-time.After(50 * time.Millisecond):
	}
	_ = a.release(2)
	select {
	case off := <-got:
		if off != 0 {
			t.Fatalf("wrapped alloc at %d, want 0", off)
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
	if _, err := a.alloc(context.Background(), alignment+1, nil); err == nil {
		t.Fatal("want error for a region larger than the arena")
	}
}

func TestArenaCancel(t *testing.T) {
	a := newArena(alignment)
	if _, err := a.alloc(context.Background(), alignment, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := a.alloc(ctx, 1, []uint64{2}); err == nil {
		t.Fatal("want context error")
	}
}

// TestArenaWrapWhenEmpty: a region that does not fit before the end of an
// empty arena starts over at its beginning instead of waiting forever.
func TestArenaWrapWhenEmpty(t *testing.T) {
	a := newArena(3 * alignment)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := a.alloc(ctx, 2*alignment, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	_ = a.release(1)
	off, err := a.alloc(ctx, 2*alignment, []uint64{2})
	if err != nil || off != 0 {
		t.Fatalf("alloc after wrap at %d, %v; want 0", off, err)
	}
}
