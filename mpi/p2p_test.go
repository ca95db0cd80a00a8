package mpi

import (
	"fmt"
	"sync"
	"testing"
)

// partner returns the rank this rank exchanges with in pairwise tests:
// 0<->1, 2<->3, ...; the last rank of an odd world pairs with itself.
func partner(w *Comm) int {
	p := w.Rank() ^ 1
	if p >= w.Size() {
		return w.Rank()
	}
	return p
}

// exchange sends msg bytes to the partner and receives into a buffer of buf
// bytes, with blocking calls ordered so that pairs do not deadlock; a rank
// paired with itself uses Isend, as a blocking send to self may not return.
func exchange(t *testing.T, w *Comm, msg, buf, tag int) {
	t.Helper()
	rank, p := w.Rank(), partner(w)
	send := make([]byte, msg)
	fill(send, rank, p)
	recv := make([]byte, buf)
	var st Status
	var err error
	what := fmt.Sprintf("msg=%d buf=%d rank %d<-%d", msg, buf, rank, p)
	switch {
	case p == rank:
		r, ierr := w.Isend(send, p, tag)
		if ierr != nil {
			t.Errorf("%s: Isend: %v", what, ierr)
			return
		}
		st, err = w.Recv(recv, p, tag)
		if _, werr := r.Wait(); werr != nil {
			t.Errorf("%s: Wait: %v", what, werr)
		}
	case rank%2 == 0:
		if err = w.Send(send, p, tag); err == nil {
			st, err = w.Recv(recv, p, tag)
		}
	default:
		if st, err = w.Recv(recv, p, tag); err == nil {
			err = w.Send(send, p, tag)
		}
	}
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if want := (Status{Source: p, Tag: tag, Count: msg}); st != want {
		t.Errorf("%s: status %+v, want %+v", what, st, want)
	}
	checkPat(t, what, recv[:msg], p, rank)
}

func TestSendRecv(t *testing.T) {
	for _, c := range []struct{ msg, buf int }{{0, 0}, {0, 8}, {10, 10}, {10, 64}, {200000, 200000}} {
		exchange(t, World(), c.msg, c.buf, 3)
	}
}

// TestRing passes a message around the ring with Isend and a Recv from
// AnySource with AnyTag, and checks the Status names the left neighbour.
func TestRing(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	right, left := (rank+1)%size, (rank+size-1)%size
	for _, n := range []int{0, 17, 100000} {
		send := make([]byte, n)
		fill(send, rank, right)
		req, err := w.Isend(send, right, 40+n%7)
		if err != nil {
			t.Errorf("Isend: %v", err)
			continue
		}
		recv := make([]byte, n+1)
		st, err := w.Recv(recv, AnySource, AnyTag)
		if err != nil {
			t.Errorf("Recv: %v", err)
		}
		if _, err := req.Wait(); err != nil {
			t.Errorf("Wait: %v", err)
		}
		if want := (Status{Source: left, Tag: 40 + n%7, Count: n}); st != want {
			t.Errorf("n=%d: status %+v, want %+v", n, st, want)
		}
		checkPat(t, fmt.Sprintf("ring n=%d", n), recv[:n], left, rank)
	}
}

// TestIsendIrecv posts two receives from the left neighbour in the opposite
// order of the matching sends: MPI matches by tag, not by posting order.
func TestIsendIrecv(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	right, left := (rank+1)%size, (rank+size-1)%size
	a, b := make([]byte, 300), make([]byte, 70000)
	rb, err := w.Irecv(b, left, 8)
	if err != nil {
		t.Fatalf("Irecv: %v", err)
	}
	ra, err := w.Irecv(a, left, 7)
	if err != nil {
		t.Fatalf("Irecv: %v", err)
	}
	sa, sb := make([]byte, 300), make([]byte, 70000)
	fill(sa, rank, right)
	fill(sb, rank+size, right)
	var sends []*Request
	for _, m := range []struct {
		buf []byte
		tag int
	}{{sa, 7}, {sb, 8}} {
		r, err := w.Isend(m.buf, right, m.tag)
		if err != nil {
			t.Fatalf("Isend: %v", err)
		}
		sends = append(sends, r)
	}
	for _, c := range []struct {
		req  *Request
		tag  int
		buf  []byte
		from int
	}{{ra, 7, a, left}, {rb, 8, b, left + size}} {
		st, err := c.req.Wait()
		if err != nil {
			t.Errorf("Wait tag %d: %v", c.tag, err)
			continue
		}
		if want := (Status{Source: left, Tag: c.tag, Count: len(c.buf)}); st != want {
			t.Errorf("tag %d: status %+v, want %+v", c.tag, st, want)
		}
		checkPat(t, fmt.Sprintf("Irecv tag %d", c.tag), c.buf, c.from, rank)
		if again, err := c.req.Wait(); again != st || err != nil {
			t.Errorf("second Wait = %+v, %v; want %+v, nil", again, err, st)
		}
	}
	for _, r := range sends {
		if st, err := r.Wait(); err != nil || st != (Status{}) {
			t.Errorf("send Wait = %+v, %v; want zero status, nil", st, err)
		}
	}
}

// TestConcurrentGoroutines runs point-to-point traffic from several
// goroutines at once, which needs MPI_THREAD_MULTIPLE.
func TestConcurrentGoroutines(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	right, left := (rank+1)%size, (rank+size-1)%size
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				tag := 100 + g
				send := make([]byte, 1000+g)
				fill(send, rank+i, g)
				recv := make([]byte, 1000+g)
				rr, err := w.Irecv(recv, left, tag)
				if err != nil {
					t.Error(err)
					return
				}
				sr, err := w.Isend(send, right, tag)
				if err != nil {
					t.Error(err)
					return
				}
				st, err := rr.Wait()
				if err != nil || st.Count != 1000+g || st.Source != left {
					t.Errorf("goroutine %d message %d: %+v, %v", g, i, st, err)
				}
				// Messages with one tag from one sender arrive in order.
				checkPat(t, fmt.Sprintf("goroutine %d message %d", g, i), recv, left+i, g)
				if _, err := sr.Wait(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

// TestRequestTest polls an Irecv with Test until the ring neighbour's
// message arrives: Test must report false while nothing has come (the send
// happens only after the first poll) and then the full Status.
func TestRequestTest(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	right, left := (rank+1)%size, (rank+size-1)%size
	recv := make([]byte, 40)
	req, err := w.Irecv(recv, left, 61)
	if err != nil {
		t.Fatalf("Irecv: %v", err)
	}
	if size > 1 {
		if done, err := req.Test(); done || err != nil {
			t.Fatalf("Test before any send = %v, %v; want false, nil", done, err)
		}
	}
	if err := w.Barrier(); err != nil { // every receive is posted and polled once
		t.Fatal(err)
	}
	send := make([]byte, 33)
	fill(send, rank, right)
	sreq, err := w.Isend(send, right, 61)
	if err != nil {
		t.Fatalf("Isend: %v", err)
	}
	for {
		done, err := req.Test()
		if err != nil {
			t.Fatalf("Test: %v", err)
		}
		if done {
			break
		}
	}
	st, err := req.Wait()
	if want := (Status{Source: left, Tag: 61, Count: 33}); err != nil || st != want {
		t.Errorf("Wait after Test = %+v, %v; want %+v", st, err, want)
	}
	checkPat(t, "test", recv[:33], left, rank)
	if _, err := sreq.Wait(); err != nil {
		t.Errorf("send Wait: %v", err)
	}
}

// TestRequestCancel withdraws a receive no rank ever sends to.
func TestRequestCancel(t *testing.T) {
	w := World()
	req, err := w.Irecv(make([]byte, 8), w.Rank(), 62)
	if err != nil {
		t.Fatalf("Irecv: %v", err)
	}
	req.Cancel()
	if done, _ := req.Test(); !done {
		t.Fatal("Test after Cancel: not done")
	}
	if _, err := req.Wait(); err == nil {
		t.Fatal("Wait after Cancel: want an error")
	}
}

// TestRequestFree lets go of a send larger than any eager limit before its
// receiver has posted the receive: Free returns at once, the send still
// arrives whole once the receive is posted, and Wait on it reports that it
// was freed unless it had completed already (as sends do at once without
// MPI).
func TestRequestFree(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	right, left := (rank+1)%size, (rank+size-1)%size
	send := make([]byte, 4<<20)
	fill(send, rank, right)
	req, err := w.Isend(send, right, 63)
	if err != nil {
		t.Fatalf("Isend: %v", err)
	}
	completed, _ := req.Test()
	req.Free()
	if _, err := req.Wait(); err == nil && !completed {
		t.Error("Wait after Free: want an error")
	}
	if err := w.Barrier(); err != nil { // every send is freed before any receive is posted
		t.Fatal(err)
	}
	recv := make([]byte, len(send))
	if st, err := w.Recv(recv, left, 63); err != nil || st.Count != len(send) {
		t.Fatalf("Recv of a freed send: %+v, %v", st, err)
	}
	checkPat(t, "freed send", recv, left, rank)
}
