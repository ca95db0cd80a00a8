//go:build cgo && !nompi

package mpi

// #include "shim.h"
import "C"

// Comm is an MPI communicator with MPI_ERRORS_RETURN. Its methods may be
// called from any goroutine when MPI provides ThreadMultiple; collective
// calls on one communicator must still be made in the same order on every
// rank, and not concurrently on one rank.
type Comm struct {
	h     C.MPI_Comm // MPI_COMM_NULL after Free
	rank  int        // cached: fixed for the life of the communicator
	size  int
	world bool // the package's duplicate of MPI_COMM_WORLD; never freed by users
}

// newComm wraps a communicator handle just created by op: it installs
// MPI_ERRORS_RETURN and caches rank and size. MPI_COMM_NULL gives nil.
func newComm(op string, h C.MPI_Comm) (*Comm, error) {
	if h == cCommNull {
		return nil, nil
	}
	c := &Comm{h: h}
	if rc := C.MPI_Comm_set_errhandler(h, C.lmdbio_errors_return()); rc != cSuccess {
		C.MPI_Comm_free(&h)
		return nil, mpiError("MPI_Comm_set_errhandler", rc)
	}
	var rank, size C.int
	if rc := C.MPI_Comm_rank(h, &rank); rc != cSuccess {
		C.MPI_Comm_free(&h)
		return nil, mpiError("MPI_Comm_rank", rc)
	}
	if rc := C.MPI_Comm_size(h, &size); rc != cSuccess {
		C.MPI_Comm_free(&h)
		return nil, mpiError("MPI_Comm_size", rc)
	}
	c.rank, c.size = int(rank), int(size)
	return c, nil
}

// live returns an error if c has been freed.
func (c *Comm) live(op string) error {
	if c.h == cCommNull {
		return invalid(op, "communicator has been freed")
	}
	return nil
}

// Rank returns the calling process's rank in c (MPI_Comm_rank).
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks in c (MPI_Comm_size).
func (c *Comm) Size() int { return c.size }

// Free releases c (MPI_Comm_free); it is collective over c. Freeing World is
// refused, freeing twice returns an error.
func (c *Comm) Free() error {
	const op = "MPI_Comm_free"
	if c.world {
		return invalid(op, "the world communicator cannot be freed")
	}
	if err := c.live(op); err != nil {
		return err
	}
	err := mpiError(op, C.MPI_Comm_free(&c.h))
	c.h = cCommNull
	return err
}

// Barrier blocks until every rank of c has called it (MPI_Barrier).
func (c *Comm) Barrier() error {
	const op = "MPI_Barrier"
	if err := c.live(op); err != nil {
		return err
	}
	return mpiError(op, C.MPI_Barrier(c.h))
}

// Ibarrier starts a barrier (MPI_Ibarrier); the request completes once
// every rank of c has started it.
func (c *Comm) Ibarrier() (*Request, error) {
	const op = "MPI_Ibarrier"
	if err := c.live(op); err != nil {
		return nil, err
	}
	r := &Request{op: op, collective: true}
	var q C.MPI_Request
	if rc := C.MPI_Ibarrier(c.h, &q); rc != cSuccess {
		return nil, mpiError(op, rc)
	}
	r.reqs = append(r.reqs, q)
	return r, nil
}

// Split partitions c by color, ordering ranks within a part by key, then by
// rank in c (MPI_Comm_split). It is collective over c. A rank with color
// Undefined gets a nil *Comm and no error; other colors must not be negative.
func (c *Comm) Split(color, key int) (*Comm, error) {
	const op = "MPI_Comm_split"
	if err := c.live(op); err != nil {
		return nil, err
	}
	cc := C.int(color)
	if color == Undefined {
		cc = cUndefined
	} else if color < 0 {
		return nil, invalid(op, "color %d is negative and not Undefined", color)
	}
	var h C.MPI_Comm
	if rc := C.MPI_Comm_split(c.h, cc, C.int(key), &h); rc != cSuccess {
		return nil, mpiError(op, rc)
	}
	return newComm(op, h)
}

// SplitShared partitions c into groups of ranks that can share memory, that
// is one group per node, ordered by key then rank in c
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED). It is collective over c.
func (c *Comm) SplitShared(key int) (*Comm, error) {
	const op = "MPI_Comm_split_type"
	if err := c.live(op); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	rc := C.MPI_Comm_split_type(c.h, C.lmdbio_comm_type_shared(), C.int(key), C.lmdbio_info_null(), &h)
	if rc != cSuccess {
		return nil, mpiError(op, rc)
	}
	return newComm(op, h)
}
