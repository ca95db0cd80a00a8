package launch

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
)

// exchangeMaxPause bounds the pauses between tests of a pending exchange.
const exchangeMaxPause = 5 * time.Millisecond

// exchangeAll gives every rank of c every rank's bytes, by rank: an
// allgather that waits with pauses, lengths first. The agents call it once
// per round of their learners' calls, and the agent whose learners called
// first waits there for the others' — while they train, maybe for long:
// MPI's blocking collectives would keep a core busy all that time.
func exchangeAll(c *mpi.Comm, mine []byte) ([][]byte, error) {
	n := c.Size()
	same := func(size int) (counts, displs []int) {
		counts, displs = make([]int, n), make([]int, n)
		for r := range n {
			counts[r], displs[r] = size, r*size
		}
		return counts, displs
	}
	// Every rank sends the same bytes to every rank: one copy, read n times.
	lens := make([]byte, 8*n)
	counts, displs := same(8)
	zero := make([]int, n)
	if err := waitRequest(c.Ialltoallv(binary.LittleEndian.AppendUint64(nil, uint64(len(mine))), counts, zero, lens, counts, displs)); err != nil {
		return nil, err
	}
	recvCounts, recvDispls := make([]int, n), make([]int, n)
	total := 0
	for r := range n {
		size := binary.LittleEndian.Uint64(lens[8*r:])
		if size > 1<<30 {
			return nil, fmt.Errorf("rank %d sends %d bytes", r, size)
		}
		recvCounts[r], recvDispls[r] = int(size), total
		total += int(size)
	}
	all := make([]byte, total)
	sendCounts, _ := same(len(mine))
	if err := waitRequest(c.Ialltoallv(mine, sendCounts, zero, all, recvCounts, recvDispls)); err != nil {
		return nil, err
	}
	out := make([][]byte, n)
	for r := range n {
		out[r] = all[recvDispls[r] : recvDispls[r]+recvCounts[r]]
	}
	return out, nil
}

// waitRequest waits for a request, sleeping in between tests.
func waitRequest(r *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	return r.WaitPolling(exchangeMaxPause)
}
