//go:build cgo && !nompi

package mpi

// #include "shim.h"
import "C"

// Collectives must be called by every rank of c, in the same order. All
// counts and displacements are in bytes.

// Bcast copies buf of rank root into buf of every rank (MPI_Bcast). Every
// rank passes a buffer of the same length. Buffers longer than 2^31-1 bytes
// are broadcast in chunks.
func (c *Comm) Bcast(buf []byte, root int) error {
	const op = "MPI_Bcast"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkRoot(op, root, c.size); err != nil {
		return err
	}
	for off := 0; ; {
		n := min(maxCount, len(buf)-off)
		part := buf[off : off+n]
		if rc := C.MPI_Bcast(recvPtr(part), C.int(n), cByte, C.int(root), c.h); rc != cSuccess {
			return mpiError(op, rc)
		}
		off += n
		if off >= len(buf) {
			return nil
		}
	}
}

// Gather collects len(send) bytes from every rank into recv at root, rank r
// at offset r*len(send) (MPI_Gather). Every rank sends the same length; recv
// needs Size*len(send) bytes at root and is ignored elsewhere.
func (c *Comm) Gather(send, recv []byte, root int) error {
	const op = "MPI_Gather"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkRoot(op, root, c.size); err != nil {
		return err
	}
	if c.rank == root {
		if err := checkLen(op, "receive", len(recv), c.size*len(send)); err != nil {
			return err
		}
	} else {
		recv = nil
	}
	blk, err := blockFor(op, []int{len(send)})
	if err != nil {
		return err
	}
	defer blk.free()
	n := blk.count(len(send))
	return mpiError(op, C.MPI_Gather(sendPtr(send), n, blk.t, recvPtr(recv), n, blk.t, C.int(root), c.h))
}

// Gatherv collects send of every rank into recv at root, rank r's bytes at
// recv[displs[r]:displs[r]+counts[r]] (MPI_Gatherv). At root counts[root]
// must equal len(send); recv, counts and displs are ignored elsewhere.
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	const op = "MPI_Gatherv"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkRoot(op, root, c.size); err != nil {
		return err
	}
	var sblk, rblk byteBlock
	var cc, cd []C.int
	if c.rank == root {
		if err := checkLayout(op, "receive", counts, displs, c.size, len(recv)); err != nil {
			return err
		}
		if err := checkOwn(op, "counts", counts, c.rank, len(send)); err != nil {
			return err
		}
		var err error
		if rblk, err = blockFor(op, counts, displs); err != nil {
			return err
		}
		defer rblk.free()
		sblk = rblk
		cc, cd = cInts(counts, rblk.size), cInts(displs, rblk.size)
	} else {
		// Other ranks do not know the layout: their block depends on their
		// own length only.
		var err error
		if sblk, err = blockFor(op, []int{len(send)}); err != nil {
			return err
		}
		defer sblk.free()
		rblk, recv = sblk, nil
	}
	rc := C.MPI_Gatherv(sendPtr(send), sblk.count(len(send)), sblk.t,
		recvPtr(recv), intsPtr(cc), intsPtr(cd), rblk.t, C.int(root), c.h)
	return mpiError(op, rc)
}

// Allgather collects len(send) bytes from every rank into recv of every
// rank, rank r at offset r*len(send) (MPI_Allgather). Every rank sends the
// same length; recv needs Size*len(send) bytes.
func (c *Comm) Allgather(send, recv []byte) error {
	const op = "MPI_Allgather"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkLen(op, "receive", len(recv), c.size*len(send)); err != nil {
		return err
	}
	blk, err := blockFor(op, []int{len(send)})
	if err != nil {
		return err
	}
	defer blk.free()
	n := blk.count(len(send))
	return mpiError(op, C.MPI_Allgather(sendPtr(send), n, blk.t, recvPtr(recv), n, blk.t, c.h))
}

// Allgatherv collects send of every rank into recv of every rank, rank r's
// bytes at recv[displs[r]:displs[r]+counts[r]] (MPI_Allgatherv).
// counts[Rank()] must equal len(send).
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	const op = "MPI_Allgatherv"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkLayout(op, "receive", counts, displs, c.size, len(recv)); err != nil {
		return err
	}
	if err := checkOwn(op, "counts", counts, c.rank, len(send)); err != nil {
		return err
	}
	// One block from the shared layout for both sides, the same on every
	// rank: OpenMPI's algorithm choice multiplies the send type's size by
	// the receive counts, so ranks with different send types would pick
	// different algorithms and hang.
	blk, err := blockFor(op, counts, displs)
	if err != nil {
		return err
	}
	defer blk.free()
	if c.size == 1 {
		// MPICH before 4.1 ignores displs[0] on a single rank (its local
		// copy lands at offset 0: pmodels/mpich#6374). The copy is all
		// there is to do.
		copy(recv[displs[0]:displs[0]+counts[0]], send)
		return nil
	}
	cc, cd := cInts(counts, blk.size), cInts(displs, blk.size)
	rc := C.MPI_Allgatherv(sendPtr(send), blk.count(len(send)), blk.t,
		recvPtr(recv), &cc[0], &cd[0], blk.t, c.h)
	return mpiError(op, rc)
}

// Alltoallv sends send[sendDispls[r]:sendDispls[r]+sendCounts[r]] to every
// rank r and receives rank r's bytes into
// recv[recvDispls[r]:recvDispls[r]+recvCounts[r]] (MPI_Alltoallv). What
// rank a sends to b must have the length b expects from a; the binding can
// check this only for a == b.
func (c *Comm) Alltoallv(send []byte, sendCounts, sendDispls []int, recv []byte, recvCounts, recvDispls []int) error {
	const op = "MPI_Alltoallv"
	if err := c.live(op); err != nil {
		return err
	}
	if err := checkLayout(op, "send", sendCounts, sendDispls, c.size, len(send)); err != nil {
		return err
	}
	if err := checkLayout(op, "receive", recvCounts, recvDispls, c.size, len(recv)); err != nil {
		return err
	}
	if sendCounts[c.rank] != recvCounts[c.rank] {
		return invalid(op, "rank %d sends itself %d bytes but expects %d", c.rank,
			sendCounts[c.rank], recvCounts[c.rank])
	}
	sblk, err := blockFor(op, sendCounts, sendDispls)
	if err != nil {
		return err
	}
	defer sblk.free()
	rblk, err := blockFor(op, recvCounts, recvDispls)
	if err != nil {
		return err
	}
	defer rblk.free()
	sc, sd := cInts(sendCounts, sblk.size), cInts(sendDispls, sblk.size)
	rcn, rd := cInts(recvCounts, rblk.size), cInts(recvDispls, rblk.size)
	rc := C.MPI_Alltoallv(sendPtr(send), &sc[0], &sd[0], sblk.t,
		recvPtr(recv), &rcn[0], &rd[0], rblk.t, c.h)
	return mpiError(op, rc)
}

// Ialltoallv starts an Alltoallv (MPI_Ialltoallv) and returns at once. The
// buffers are pinned and belong to MPI until the request completes (Wait,
// or Test reporting true); Wait or Test must be called until then. A
// non-blocking collective cannot be cancelled: every rank must take part.
// Polling Test with pauses lets a rank wait for slow peers without keeping a
// core busy and without holding the thread that other MPI calls need.
func (c *Comm) Ialltoallv(send []byte, sendCounts, sendDispls []int, recv []byte, recvCounts, recvDispls []int) (*Request, error) {
	const op = "MPI_Ialltoallv"
	if err := c.live(op); err != nil {
		return nil, err
	}
	if err := checkLayout(op, "send", sendCounts, sendDispls, c.size, len(send)); err != nil {
		return nil, err
	}
	if err := checkLayout(op, "receive", recvCounts, recvDispls, c.size, len(recv)); err != nil {
		return nil, err
	}
	if sendCounts[c.rank] != recvCounts[c.rank] {
		return nil, invalid(op, "rank %d sends itself %d bytes but expects %d", c.rank,
			sendCounts[c.rank], recvCounts[c.rank])
	}
	sblk, err := blockFor(op, sendCounts, sendDispls)
	if err != nil {
		return nil, err
	}
	rblk, err := blockFor(op, recvCounts, recvDispls)
	if err != nil {
		sblk.free()
		return nil, err
	}
	// MPI reads the count arrays until the operation completes: they live
	// in C memory, out of reach of Go's collector.
	arrays := cArrays(c.size, [][]int{sendCounts, sendDispls, recvCounts, recvDispls}, []int{sblk.size, sblk.size, rblk.size, rblk.size})
	r := &Request{op: op, collective: true}
	r.pinBuf(send)
	r.pinBuf(recv)
	r.release = func() {
		arrays.free()
		sblk.free()
		rblk.free()
	}
	var q C.MPI_Request
	rc := C.MPI_Ialltoallv(sendPtr(send), arrays.at(0), arrays.at(1), sblk.t,
		recvPtr(recv), arrays.at(2), arrays.at(3), rblk.t, c.h, &q)
	if rc != cSuccess {
		r.pin.Unpin()
		r.release()
		r.done = true
		return nil, mpiError(op, rc)
	}
	r.reqs = []C.MPI_Request{q}
	return r, nil
}

// AllreduceInt64 combines send of every rank element-wise with op and
// stores the result in recv of every rank (MPI_Allreduce on MPI_INT64_T).
// Every rank passes the same len(send); recv needs at least as many.
func (c *Comm) AllreduceInt64(send, recv []int64, op Op) error {
	return allreduce(c, send, recv, op, C.lmdbio_type_int64())
}

// AllreduceFloat64 is AllreduceInt64 for float64 (MPI_DOUBLE).
func (c *Comm) AllreduceFloat64(send, recv []float64, op Op) error {
	return allreduce(c, send, recv, op, C.lmdbio_type_double())
}

// allreduce runs MPI_Allreduce in chunks of at most maxCount elements;
// element-wise reduction makes chunking exact.
func allreduce[T int64 | float64](c *Comm, send, recv []T, o Op, t C.MPI_Datatype) error {
	const op = "MPI_Allreduce"
	if err := c.live(op); err != nil {
		return err
	}
	cop, ok := cOp(o)
	if !ok {
		return invalid(op, "unknown reduction %v", o)
	}
	if err := checkLen(op, "receive", len(recv), len(send)); err != nil {
		return err
	}
	for off := 0; ; {
		n := min(maxCount, len(send)-off)
		s, r := send[off:off+n], recv[off:off+n]
		if rc := C.MPI_Allreduce(sendPtr(s), recvPtr(r), C.int(n), t, cop, c.h); rc != cSuccess {
			return mpiError(op, rc)
		}
		off += n
		if off >= len(send) {
			return nil
		}
	}
}
