package mpi

import (
	"fmt"
	"testing"
)

// TestChunking lowers the per-call count limit to 1000 bytes so that the
// paths for messages and collectives beyond 2^31-1 bytes run with small
// buffers: chunked point-to-point messages and broadcasts, chunked
// reductions, and block datatypes for the v-collectives.
func TestChunking(t *testing.T) {
	withMaxCount(1000, func() {
		w := World()
		size, rank := w.Size(), w.Rank()

		// Message and buffer lengths around the chunk size, including
		// exact multiples (which end with an empty chunk) and receive
		// buffers longer than the message.
		for _, c := range []struct{ msg, buf int }{
			{999, 999}, {999, 3500}, {1000, 1000}, {1000, 2000},
			{2500, 2500}, {2500, 3500}, {3000, 3000}, {3000, 3500},
		} {
			exchange(t, w, c.msg, c.buf, 11)
		}

		// Non-blocking chunked messages around the ring.
		right, left := (rank+1)%size, (rank+size-1)%size
		for _, n := range []int{2000, 2999} {
			recv := make([]byte, n)
			rr, err := w.Irecv(recv, left, 12)
			if err != nil {
				t.Errorf("Irecv %d: %v", n, err)
				continue
			}
			send := make([]byte, n)
			fill(send, rank, right)
			sr, err := w.Isend(send, right, 12)
			if err != nil {
				t.Errorf("Isend %d: %v", n, err)
			}
			st, err := rr.Wait()
			if want := (Status{Source: left, Tag: 12, Count: n}); err != nil || st != want {
				t.Errorf("Irecv %d: %+v, %v; want %+v", n, st, err, want)
			}
			if _, err := sr.Wait(); err != nil {
				t.Errorf("Isend %d: %v", n, err)
			}
			checkPat(t, fmt.Sprintf("chunked Irecv %d", n), recv, left, rank)
		}
		for _, tc := range []struct{ src, tag int }{{AnySource, 1}, {left, AnyTag}} {
			_, err := w.Irecv(make([]byte, 1000), tc.src, tc.tag)
			if e := asError(t, "chunked Irecv from any", err); e != nil && e.Code != CodeInvalid {
				t.Errorf("chunked Irecv from any: %#v", e)
			}
		}

		// Chunked broadcasts.
		for _, n := range []int{2500, 3000} {
			buf := make([]byte, n)
			if rank == 0 {
				fill(buf, 0, 1)
			}
			if err := w.Bcast(buf, 0); err != nil {
				t.Errorf("Bcast %d: %v", n, err)
			}
			checkPat(t, fmt.Sprintf("chunked Bcast %d", n), buf, 0, 1)
		}

		// Chunked reductions.
		const n = 2500
		send, recv := make([]int64, n), make([]int64, n)
		for i := range send {
			send[i] = int64(i * (rank + 1))
		}
		if err := w.AllreduceInt64(send, recv, Sum); err != nil {
			t.Errorf("AllreduceInt64: %v", err)
		}
		for i := range recv {
			if want := int64(i * size * (size + 1) / 2); recv[i] != want {
				t.Errorf("AllreduceInt64[%d] = %d, want %d", i, recv[i], want)
				break
			}
		}

		// Block datatypes: counts and displacements share a block.
		alltoallvRun(t, w, 800, 800, false)
		alltoallvRun(t, w, 800, 800, true)
		for root := range size {
			counts, displs, total := vLayout(size, 2000, 1000)
			sendv := make([]byte, counts[rank])
			fill(sendv, rank, root)
			recvv := make([]byte, total)
			sentinel(recvv)
			if err := w.Gatherv(sendv, recvv, counts, displs, root); err != nil {
				t.Errorf("Gatherv with blocks: %v", err)
			} else if rank == root {
				checkV(t, "Gatherv with blocks", recvv, counts, displs, root)
			}
			sentinel(recvv)
			fill(sendv, rank, 0)
			if err := w.Allgatherv(sendv, recvv, counts, displs); err != nil {
				t.Errorf("Allgatherv with blocks: %v", err)
			} else {
				checkV(t, "Allgatherv with blocks", recvv, counts, displs, 0)
			}
		}
		one := make([]byte, 2500)
		fill(one, rank, 0)
		all := make([]byte, 2500*size)
		if err := w.Allgather(one, all); err != nil {
			t.Errorf("Allgather with blocks: %v", err)
		}
		if err := w.Gather(one, all, 0); err != nil {
			t.Errorf("Gather with blocks: %v", err)
		}
		for r := range size {
			checkPat(t, "Allgather/Gather with blocks", all[r*2500:(r+1)*2500], r, 0)
		}

		// 1009 is prime: no block brings counts of 1009 bytes below 1000.
		counts := make([]int, size)
		for r := range counts {
			counts[r] = 1009
		}
		displs, total := prefixLayout(counts)
		buf := make([]byte, total)
		err := w.Alltoallv(buf, counts, displs, make([]byte, total), counts, displs)
		if e := asError(t, "Alltoallv beyond the count limit", err); e != nil && e.Code != CodeInvalid {
			t.Errorf("Alltoallv beyond the count limit: %#v", e)
		}
	})
}

func TestBlockSize(t *testing.T) {
	withMaxCount(100, func() {
		for _, tc := range []struct {
			values []int
			want   int // 0: error
		}{
			{nil, 1},
			{[]int{0, 100, 50}, 1},           // all fit
			{[]int{50, 150, 0}, 50},          // the gcd is the block
			{[]int{200, 400}, 100},           // gcd 200 too big: half of it
			{[]int{1000}, 100},               // 10 blocks of 100
			{[]int{10000}, 100},              // 100 blocks of 100
			{[]int{120, 240, 1200, 600}, 60}, // gcd 120 too big: 20 blocks of 60
			{[]int{101}, 0},                  // prime above the limit
			{[]int{101, 202}, 0},             // prime block, quotients too big
			{[]int{8, 12000}, 0},             // gcd 8: 1500 blocks
			{[]int{4, 400}, 4},               // 100 blocks of 4
		} {
			got, err := blockSize("test", tc.values)
			switch {
			case tc.want == 0 && err == nil:
				t.Errorf("blockSize(%v) = %d, want error", tc.values, got)
			case tc.want != 0 && (err != nil || got != tc.want):
				t.Errorf("blockSize(%v) = %d, %v; want %d", tc.values, got, err, tc.want)
			}
		}
	})
}
