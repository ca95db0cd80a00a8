package mpi

import (
	"os"
	"slices"
	"testing"
)

// members returns the world ranks of the members of c in c's rank order.
func members(t *testing.T, c *Comm) []int {
	t.Helper()
	// Allgather world ranks as 8-byte little-endian values.
	me := World().Rank()
	buf := make([]byte, 8)
	for i := range 8 {
		buf[i] = byte(me >> (8 * i))
	}
	recv := make([]byte, 8*c.Size())
	if err := c.Allgather(buf, recv); err != nil {
		t.Errorf("Allgather: %v", err)
		return nil
	}
	out := make([]int, c.Size())
	for r := range out {
		v := 0
		for i := range 8 {
			v |= int(recv[8*r+i]) << (8 * i)
		}
		out[r] = v
	}
	return out
}

// TestSplit splits by parity with keys that reverse the order.
func TestSplit(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	sub, err := w.Split(rank%2, -rank)
	if err != nil || sub == nil {
		t.Fatalf("Split = %v, %v", sub, err)
	}
	var want []int
	for r := size - 1; r >= 0; r-- {
		if r%2 == rank%2 {
			want = append(want, r)
		}
	}
	if sub.Size() != len(want) {
		t.Errorf("sub size %d, want %d", sub.Size(), len(want))
	}
	if got := members(t, sub); !slices.Equal(got, want) {
		t.Errorf("members %v, want %v", got, want)
	}
	if want[sub.Rank()] != rank {
		t.Errorf("sub rank %d, but that is world rank %d, not %d", sub.Rank(), want[sub.Rank()], rank)
	}
	if err := sub.Free(); err != nil {
		t.Errorf("Free: %v", err)
	}
	asError(t, "second Free", sub.Free())
	asError(t, "Barrier on freed communicator", sub.Barrier())
	asError(t, "Bcast on freed communicator", sub.Bcast(nil, 0))
	if _, err := sub.Split(0, 0); err == nil {
		t.Error("Split of a freed communicator succeeded")
	}
}

// TestSplitUndefined leaves rank 0 out.
func TestSplitUndefined(t *testing.T) {
	w := World()
	color := 5
	if w.Rank() == 0 {
		color = Undefined
	}
	sub, err := w.Split(color, w.Rank())
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	if w.Rank() == 0 {
		if sub != nil {
			t.Errorf("rank 0 with color Undefined got a communicator of size %d", sub.Size())
		}
		return
	}
	if sub == nil {
		t.Fatal("nil communicator for color 5")
	}
	if sub.Size() != w.Size()-1 || sub.Rank() != w.Rank()-1 {
		t.Errorf("rank %d of %d, want %d of %d", sub.Rank(), sub.Size(), w.Rank()-1, w.Size()-1)
	}
	if got := members(t, sub); len(got) > 0 && got[0] != 1 {
		t.Errorf("members %v, want to start at world rank 1", got)
	}
	if err := sub.Free(); err != nil {
		t.Errorf("Free: %v", err)
	}
}

// TestSplitShared checks that the shared-memory communicator holds exactly
// the world ranks on this host.
func TestSplitShared(t *testing.T) {
	w := World()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := w.SplitShared(w.Rank())
	if err != nil || sub == nil {
		t.Fatalf("SplitShared = %v, %v", sub, err)
	}
	defer sub.Free()
	// Allgatherv the host names over the world.
	lens := make([]int64, w.Size())
	mine := make([]int64, w.Size())
	mine[w.Rank()] = int64(len(host))
	if err := w.AllreduceInt64(mine, lens, Sum); err != nil {
		t.Fatal(err)
	}
	counts := make([]int, w.Size())
	for r, l := range lens {
		counts[r] = int(l)
	}
	displs, total := prefixLayout(counts)
	names := make([]byte, total)
	if err := w.Allgatherv([]byte(host), names, counts, displs); err != nil {
		t.Fatal(err)
	}
	var here []int
	for r := range w.Size() {
		if string(names[displs[r]:displs[r]+counts[r]]) == host {
			here = append(here, r)
		}
	}
	if got := members(t, sub); !slices.Equal(got, here) {
		t.Errorf("shared communicator holds world ranks %v, ranks on %s are %v", got, host, here)
	}
}

func TestFreeWorld(t *testing.T) {
	asError(t, "Free of World", World().Free())
	if err := World().Barrier(); err != nil {
		t.Errorf("World unusable after refused Free: %v", err)
	}
}
