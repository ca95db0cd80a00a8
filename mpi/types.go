package mpi

import "fmt"

// ThreadLevel is an MPI thread-support level, ordered from least to most
// permissive as in the MPI standard.
type ThreadLevel int

// Thread-support levels (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
const (
	// ThreadSingle: only one thread will execute.
	ThreadSingle ThreadLevel = iota
	// ThreadFunneled: only the thread that called Init makes MPI calls.
	ThreadFunneled
	// ThreadSerialized: any thread may call MPI, but never two at once.
	ThreadSerialized
	// ThreadMultiple: any thread may call MPI at any time. Go code wants this.
	ThreadMultiple
)

// String returns the MPI name of the level.
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("ThreadLevel(%d)", int(l))
}

// Op is a reduction operation for Allreduce. The zero value is Sum.
type Op int

// Reduction operations (MPI_SUM, MPI_MAX, MPI_MIN).
const (
	Sum Op = iota
	Max
	Min
)

// String returns the MPI name of the operation.
func (o Op) String() string {
	switch o {
	case Sum:
		return "MPI_SUM"
	case Max:
		return "MPI_MAX"
	case Min:
		return "MPI_MIN"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Special rank, tag and color values. They are the package's own numbers and
// are translated to the values of the MPI library in use (MPICH and OpenMPI
// disagree on MPI_ANY_SOURCE).
const (
	// AnySource as the source of Recv or Irecv matches a message from any rank.
	AnySource = -1
	// AnyTag as the tag of Recv or Irecv matches a message with any tag.
	AnyTag = -1
	// Undefined as the color of Split leaves the calling rank out of every
	// new communicator; Split then returns a nil *Comm.
	Undefined = -32766
)

// Status describes a received message.
type Status struct {
	Source int // rank of the sender in the communicator
	Tag    int // tag of the message
	Count  int // number of bytes received
}
