//go:build nompi || !cgo

package mpi

// With one rank every collective moves the caller's own contribution from
// send to recv. The argument checks are those of the MPI build, including
// the limits on counts, so code tried here is refused the same things there.

// Bcast leaves buf as it is: the only rank is the root.
func (c *Comm) Bcast(buf []byte, root int) error {
	const op = "MPI_Bcast"
	if err := c.live(op); err != nil {
		return err
	}
	return checkRoot(op, root, 1)
}

// Gather copies send to the start of recv.
func (c *Comm) Gather(send, recv []byte, root int) error {
	const op = "MPI_Gather"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkRoot(op, root, 1); err != nil {
		return err
	}
	if err := checkLen(op, "receive", len(recv), len(send)); err != nil {
		return err
	}
	if _, err := blockSize(op, []int{len(send)}); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

// Gatherv copies send to recv[displs[0]:].
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	const op = "MPI_Gatherv"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkRoot(op, root, 1); err != nil {
		return err
	}
	return gathervLocal(op, send, recv, counts, displs)
}

// Allgather copies send to the start of recv.
func (c *Comm) Allgather(send, recv []byte) error {
	const op = "MPI_Allgather"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkLen(op, "receive", len(recv), len(send)); err != nil {
		return err
	}
	if _, err := blockSize(op, []int{len(send)}); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}

// Allgatherv copies send to recv[displs[0]:].
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	const op = "MPI_Allgatherv"
	if err := c.live(op); err != nil {
		return err
	}
	return gathervLocal(op, send, recv, counts, displs)
}

func gathervLocal(op string, send, recv []byte, counts, displs []int) error {
	if err := checkLayout(op, "receive", counts, displs, 1, len(recv)); err != nil {
		return err
	}
	if err := checkOwn(op, "counts", counts, 0, len(send)); err != nil {
		return err
	}
	// The MPI build describes the send side of the root in the block of
	// the layout, too.
	if _, err := blockSize(op, counts, displs); err != nil {
		return err
	}
	copy(recv[displs[0]:displs[0]+counts[0]], send)
	return nil
}

// Alltoallv copies the rank's block to itself.
func (c *Comm) Alltoallv(send []byte, sendCounts, sendDispls []int, recv []byte, recvCounts, recvDispls []int) error {
	const op = "MPI_Alltoallv"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkLayout(op, "send", sendCounts, sendDispls, 1, len(send)); err != nil {
		return err
	}
	if err := checkLayout(op, "receive", recvCounts, recvDispls, 1, len(recv)); err != nil {
		return err
	}
	if sendCounts[0] != recvCounts[0] {
		return invalid(op, "rank 0 sends itself %d bytes but expects %d", sendCounts[0], recvCounts[0])
	}
	if _, err := blockSize(op, sendCounts, sendDispls); err != nil {
		return err
	}
	if _, err := blockSize(op, recvCounts, recvDispls); err != nil {
		return err
	}
	copy(recv[recvDispls[0]:recvDispls[0]+recvCounts[0]], send[sendDispls[0]:sendDispls[0]+sendCounts[0]])
	return nil
}

// Ialltoallv is Alltoallv, already complete.
func (c *Comm) Ialltoallv(send []byte, sendCounts, sendDispls []int, recv []byte, recvCounts, recvDispls []int) (*Request, error) {
	const op = "MPI_Ialltoallv"
	if err := c.Alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls); err != nil {
		return nil, err
	}
	r := &Request{op: op, done: make(chan struct{})}
	close(r.done)
	return r, nil
}

// AllreduceInt64 copies send to recv: the reduction of one value is itself.
func (c *Comm) AllreduceInt64(send, recv []int64, op Op) error {
	return allreduceLocal(c, send, recv, op)
}

// AllreduceFloat64 copies send to recv.
func (c *Comm) AllreduceFloat64(send, recv []float64, op Op) error {
	return allreduceLocal(c, send, recv, op)
}

func allreduceLocal[T int64 | float64](c *Comm, send, recv []T, o Op) error {
	const op = "MPI_Allreduce"
	if err := c.live(op); err != nil {
		return err
	}
	if o != Sum && o != Max && o != Min {
		return invalid(op, "unknown reduction %v", o)
	}
	if err := checkLen(op, "receive", len(recv), len(send)); err != nil {
		return err
	}
	copy(recv, send)
	return nil
}
