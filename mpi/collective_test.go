package mpi

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

func TestBarrier(t *testing.T) {
	if err := World().Barrier(); err != nil {
		t.Error(err)
	}
}

func TestBcast(t *testing.T) {
	w := World()
	for _, n := range []int{0, 1, 1000, 70000} {
		for root := range w.Size() {
			buf := make([]byte, n)
			if w.Rank() == root {
				fill(buf, root, n)
			} else {
				sentinel(buf)
			}
			if err := w.Bcast(buf, root); err != nil {
				t.Errorf("Bcast n=%d root=%d: %v", n, root, err)
				continue
			}
			checkPat(t, fmt.Sprintf("Bcast n=%d root=%d", n, root), buf, root, n)
		}
	}
	if err := w.Bcast(nil, 0); err != nil {
		t.Errorf("Bcast(nil): %v", err)
	}
}

func TestGather(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	for _, n := range []int{0, 3, 4096} {
		root := size - 1
		send := make([]byte, n)
		fill(send, rank, root)
		var recv []byte
		if rank == root {
			recv = make([]byte, size*n+5)
			sentinel(recv)
		}
		if err := w.Gather(send, recv, root); err != nil {
			t.Errorf("Gather n=%d: %v", n, err)
			continue
		}
		if rank == root {
			for r := range size {
				checkPat(t, fmt.Sprintf("Gather n=%d", n), recv[r*n:(r+1)*n], r, root)
			}
			checkSentinel(t, "Gather tail", recv[size*n:])
		}
	}
}

func TestAllgather(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	for _, n := range []int{0, 1, 5000} {
		send := make([]byte, n)
		fill(send, rank, 0)
		recv := make([]byte, size*n)
		sentinel(recv)
		if err := w.Allgather(send, recv); err != nil {
			t.Errorf("Allgather n=%d: %v", n, err)
			continue
		}
		for r := range size {
			checkPat(t, fmt.Sprintf("Allgather n=%d", n), recv[r*n:(r+1)*n], r, 0)
		}
	}
}

// vLayout returns per-rank counts with zeros (every third rank from rank 1
// contributes nothing) and displacements in reverse rank order with gap
// bytes between regions, so a binding that ignores displacements fails.
func vLayout(size, scale, gap int) (counts, displs []int, total int) {
	counts = make([]int, size)
	displs = make([]int, size)
	for r := range size {
		if r%3 != 1 {
			counts[r] = (r + 1) * scale
		}
	}
	total = gap // a leading gap, so even a single rank has a displacement
	for r := size - 1; r >= 0; r-- {
		displs[r] = total
		total += counts[r] + gap
	}
	return counts, displs, total
}

func checkSentinel(t *testing.T, what string, p []byte) {
	t.Helper()
	for i, b := range p {
		if b != 0xEE {
			t.Errorf("%s: byte %d overwritten with %#x", what, i, b)
			return
		}
	}
}

// checkV checks the regions of a v-collective's receive buffer, and that
// the gaps between them are untouched.
func checkV(t *testing.T, what string, recv []byte, counts, displs []int, to int) {
	t.Helper()
	covered := make([]bool, len(recv))
	for r := range counts {
		checkPat(t, what, recv[displs[r]:displs[r]+counts[r]], r, to)
		for i := displs[r]; i < displs[r]+counts[r]; i++ {
			covered[i] = true
		}
	}
	for i, c := range covered {
		if !c && recv[i] != 0xEE {
			t.Errorf("%s: gap byte %d overwritten with %#x", what, i, recv[i])
			return
		}
	}
}

func TestGatherv(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	for _, scale := range []int{0, 1, 777} {
		for root := range size {
			counts, displs, total := vLayout(size, scale, 3)
			send := make([]byte, counts[rank])
			fill(send, rank, root)
			var recv []byte
			if rank == root {
				recv = make([]byte, total)
				sentinel(recv)
			} else {
				// Ignored away from root: nil must be fine.
				counts, displs = nil, nil
			}
			if err := w.Gatherv(send, recv, counts, displs, root); err != nil {
				t.Errorf("Gatherv scale=%d root=%d: %v", scale, root, err)
				continue
			}
			if rank == root {
				checkV(t, fmt.Sprintf("Gatherv scale=%d root=%d", scale, root), recv, counts, displs, root)
			}
		}
	}
}

func TestAllgatherv(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	for _, scale := range []int{0, 1, 2000} {
		counts, displs, total := vLayout(size, scale, 3)
		send := make([]byte, counts[rank])
		fill(send, rank, 0)
		recv := make([]byte, total)
		sentinel(recv)
		if err := w.Allgatherv(send, recv, counts, displs); err != nil {
			t.Errorf("Allgatherv scale=%d: %v", scale, err)
			continue
		}
		checkV(t, fmt.Sprintf("Allgatherv scale=%d", scale), recv, counts, displs, 0)
	}
}

// alltoallCount is the number of bytes rank src sends rank dst: distinct per
// pair, zero for every pair from rank 1 and for some others, never zero from
// rank 0 to itself (so a single rank exchanges something).
func alltoallCount(src, dst, scale int) int {
	if src == 1 {
		return 0
	}
	return ((src*3 + dst*5 + 1) % 7) * scale
}

// alltoallvRun exchanges alltoallCount bytes between every pair, laying out
// send regions in reverse destination order and receive regions with gap
// bytes between them, and checks every received byte.
func alltoallvRun(t *testing.T, w *Comm, scale, gap int, nonblocking bool) {
	t.Helper()
	size, rank := w.Size(), w.Rank()
	sc, sd := make([]int, size), make([]int, size)
	rc, rd := make([]int, size), make([]int, size)
	stotal, rtotal := gap, gap // leading gaps: displacements matter even on one rank
	for r := size - 1; r >= 0; r-- {
		sc[r] = alltoallCount(rank, r, scale)
		sd[r] = stotal
		stotal += sc[r]
	}
	for r := range size {
		rc[r] = alltoallCount(r, rank, scale)
		rd[r] = rtotal
		rtotal += rc[r] + gap
	}
	send := make([]byte, stotal)
	for r := range size {
		fill(send[sd[r]:sd[r]+sc[r]], rank, r)
	}
	recv := make([]byte, rtotal)
	sentinel(recv)
	if err := alltoallv(w, nonblocking, send, sc, sd, recv, rc, rd); err != nil {
		t.Errorf("Alltoallv scale=%d nonblocking=%v: %v", scale, nonblocking, err)
		return
	}
	checkV(t, fmt.Sprintf("Alltoallv scale=%d rank=%d", scale, rank), recv, rc, rd, rank)
}

// alltoallv runs Alltoallv, or Ialltoallv completed by polling Test.
func alltoallv(w *Comm, nonblocking bool, send []byte, sc, sd []int, recv []byte, rc, rd []int) error {
	if !nonblocking {
		return w.Alltoallv(send, sc, sd, recv, rc, rd)
	}
	r, err := w.Ialltoallv(send, sc, sd, recv, rc, rd)
	if err != nil {
		return err
	}
	for {
		done, err := r.Test()
		if done || err != nil {
			return err
		}
		time.Sleep(10 * time.Microsecond)
	}
}

func TestAlltoallv(t *testing.T) {
	for _, scale := range []int{0, 1, 13, 1000} {
		for _, nonblocking := range []bool{false, true} {
			alltoallvRun(t, World(), scale, 1, nonblocking)
		}
	}
}

// TestAlltoallvLarge moves more than 64 MiB in total through one Alltoallv.
func TestAlltoallvLarge(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	pair := (65<<20)/(size*size) + 1
	counts := make([]int, size)
	for r := range counts {
		counts[r] = pair
	}
	displs, total := prefixLayout(counts)
	send := make([]byte, total)
	for r := range size {
		fill(send[displs[r]:displs[r]+pair], rank, r)
	}
	recv := make([]byte, total)
	if err := w.Alltoallv(send, counts, displs, recv, counts, displs); err != nil {
		t.Errorf("Alltoallv of %d bytes per pair: %v", pair, err)
		return
	}
	for r := range size {
		checkPat(t, "large Alltoallv", recv[displs[r]:displs[r]+pair], r, rank)
	}
}

// TestEmptyContributions passes nil buffers and all-zero counts everywhere.
func TestEmptyContributions(t *testing.T) {
	w := World()
	size := w.Size()
	zeros := make([]int, size)
	// A slice, not a map: every rank must make the calls in the same order.
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Bcast", func() error { return w.Bcast(nil, 0) }},
		{"Gather", func() error { return w.Gather(nil, nil, 0) }},
		{"Gatherv", func() error { return w.Gatherv(nil, nil, zeros, zeros, 0) }},
		{"Allgather", func() error { return w.Allgather(nil, nil) }},
		{"Allgatherv", func() error { return w.Allgatherv(nil, nil, zeros, zeros) }},
		{"Alltoallv", func() error { return w.Alltoallv(nil, zeros, zeros, nil, zeros, zeros) }},
		{"AllreduceInt64", func() error { return w.AllreduceInt64(nil, nil, Sum) }},
		{"AllreduceFloat64", func() error { return w.AllreduceFloat64([]float64{}, nil, Max) }},
	} {
		if err := tc.call(); err != nil {
			t.Errorf("%s with empty buffers: %v", tc.name, err)
		}
	}
}

func TestAllreduce(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	const n = 5
	// Rank r contributes (r+1)*(i+1)*sign, sign alternating with i; floats
	// add r+0.5, exact in binary.
	ival := func(r, i int) int64 {
		v := int64((r + 1) * (i + 1))
		if i%2 == 1 {
			v = -v
		}
		return v
	}
	fval := func(r, i int) float64 { return float64(ival(r, i)) + float64(r) + 0.5 }
	for _, op := range []Op{Sum, Max, Min} {
		is, fs := make([]int64, n), make([]float64, n)
		for i := range n {
			is[i], fs[i] = ival(rank, i), fval(rank, i)
		}
		ir, fr := make([]int64, n), make([]float64, n)
		if err := w.AllreduceInt64(is, ir, op); err != nil {
			t.Errorf("AllreduceInt64 %v: %v", op, err)
		}
		if err := w.AllreduceFloat64(fs, fr, op); err != nil {
			t.Errorf("AllreduceFloat64 %v: %v", op, err)
		}
		for i := range n {
			wi, wf := ival(0, i), fval(0, i)
			for r := 1; r < size; r++ {
				switch op {
				case Sum:
					wi, wf = wi+ival(r, i), wf+fval(r, i)
				case Max:
					wi, wf = max(wi, ival(r, i)), max(wf, fval(r, i))
				case Min:
					wi, wf = min(wi, ival(r, i)), min(wf, fval(r, i))
				}
			}
			if ir[i] != wi {
				t.Errorf("AllreduceInt64 %v [%d] = %d, want %d", op, i, ir[i], wi)
			}
			if fr[i] != wf {
				t.Errorf("AllreduceFloat64 %v [%d] = %g, want %g", op, i, fr[i], wf)
			}
		}
	}
}

// TestBarrierSleeping: no rank leaves before the last has arrived, and the
// ranks that wait for it sleep rather than spin: well under a core of CPU
// time over the wait.
func TestBarrierSleeping(t *testing.T) {
	w := World()
	const late = 300 * time.Millisecond
	if err := w.Barrier(); err != nil {
		t.Fatal(err)
	}
	cpu0, start := cpuTime(t), time.Now()
	if w.Rank() == w.Size()-1 {
		time.Sleep(late)
	}
	if err := w.BarrierSleeping(time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waited, cpu := time.Since(start), cpuTime(t)-cpu0
	if w.Size() > 1 && waited < late*9/10 {
		t.Errorf("left the barrier after %v, before the last rank arrived (%v)", waited, late)
	}
	if cpu > waited/2 {
		t.Errorf("used %v of CPU over a wait of %v", cpu, waited)
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
