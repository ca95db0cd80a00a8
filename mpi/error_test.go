package mpi

import (
	"strings"
	"testing"
)

// TestArgumentErrors checks that mistakes the binding can see are returned
// as *Error with Code CodeInvalid before any rank enters MPI. Every rank
// makes the same mistakes, so none is left waiting in a collective.
func TestArgumentErrors(t *testing.T) {
	w := World()
	size, rank := w.Size(), w.Rank()
	zeros := make([]int, size)
	short := make([]int, size+1)
	counts := make([]int, size)
	counts[rank] = 4
	for _, tc := range []struct {
		name, op string
		err      error
	}{
		{"Bcast root=size", "MPI_Bcast", w.Bcast(nil, size)},
		{"Bcast root=-1", "MPI_Bcast", w.Bcast(make([]byte, 3), -1)},
		{"Gather root=size", "MPI_Gather", w.Gather(nil, nil, size)},
		{"Gatherv root=-2", "MPI_Gatherv", w.Gatherv(nil, nil, zeros, zeros, -2)},
		{"Gather recv too small", "MPI_Gather", w.Gather(make([]byte, 4), make([]byte, 4*size-1), rank)},
		{"Gatherv counts too long", "MPI_Gatherv", w.Gatherv(nil, nil, short, short, rank)},
		{"Allgather recv too small", "MPI_Allgather", w.Allgather(make([]byte, 2), make([]byte, 2*size-1))},
		{"Allgatherv displs too short", "MPI_Allgatherv", w.Allgatherv(nil, nil, zeros, zeros[1:])},
		{"Allgatherv own count", "MPI_Allgatherv", w.Allgatherv(make([]byte, 3), make([]byte, 4*size), counts, zeros)},
		{"Allgatherv region beyond recv", "MPI_Allgatherv", w.Allgatherv(make([]byte, 4), make([]byte, 3), counts, zeros)},
		{"Alltoallv send counts too short", "MPI_Alltoallv", w.Alltoallv(nil, zeros[1:], zeros, nil, zeros, zeros)},
		{"Alltoallv negative count", "MPI_Alltoallv", w.Alltoallv(nil, zeros, zeros, nil, negative(size, rank), zeros)},
		{"Alltoallv send region beyond buffer", "MPI_Alltoallv", w.Alltoallv(make([]byte, 3), counts, zeros, make([]byte, 4), counts, zeros)},
		{"Alltoallv self count mismatch", "MPI_Alltoallv", w.Alltoallv(make([]byte, 4), counts, zeros, nil, zeros, zeros)},
		{"AllreduceInt64 recv too small", "MPI_Allreduce", w.AllreduceInt64(make([]int64, 3), make([]int64, 2), Sum)},
		{"AllreduceFloat64 unknown op", "MPI_Allreduce", w.AllreduceFloat64(nil, nil, Op(42))},
		{"Send dest=size", "MPI_Send", w.Send(nil, size, 0)},
		{"Recv source=size", "MPI_Recv", second(w.Recv(nil, size, 0))},
		{"Isend dest=-3", "MPI_Isend", second(w.Isend(nil, -3, 0))},
		{"Irecv source=size", "MPI_Irecv", second(w.Irecv(nil, size, 0))},
		{"Split negative color", "MPI_Comm_split", second(w.Split(-5, 0))},
	} {
		e := asError(t, tc.name, tc.err)
		if e == nil {
			continue
		}
		if e.Op != tc.op || e.Code != CodeInvalid {
			t.Errorf("%s: got %#v, want Op %s, Code CodeInvalid", tc.name, e, tc.op)
		}
	}
}

func negative(size, rank int) []int {
	c := make([]int, size)
	c[(rank+1)%size] = -1
	return c
}

func second[T any](_ T, err error) error { return err }

// TestMPIErrors checks errors found by MPI itself come back through
// MPI_ERRORS_RETURN as *Error, not as an abort.
func TestMPIErrors(t *testing.T) {
	w := World()
	rank := w.Rank()

	// A negative tag is checked by MPI, not by the binding.
	e := asError(t, "Send with tag -5", w.Send([]byte{1}, rank, -5))
	if e != nil && e.Op != "MPI_Send" {
		t.Errorf("negative tag: Op %q, want MPI_Send", e.Op)
	}

	// A message longer than the receive buffer.
	req, err := w.Isend(make([]byte, 10), rank, 99)
	if err != nil {
		t.Fatalf("Isend: %v", err)
	}
	_, err = w.Recv(make([]byte, 5), rank, 99)
	if e := asError(t, "truncating Recv", err); e != nil {
		if e.Op != "MPI_Recv" {
			t.Errorf("truncation: Op %q, want MPI_Recv", e.Op)
		}
		if !strings.Contains(strings.ToLower(e.Msg), "trunc") {
			t.Errorf("truncation: message %q does not say so", e.Msg)
		}
		if !strings.HasPrefix(e.Error(), "mpi: MPI_Recv: ") {
			t.Errorf("Error() = %q", e.Error())
		}
	}
	if _, err := req.Wait(); err != nil {
		t.Errorf("Wait of the truncated send: %v", err)
	}
	// The world still works after errors.
	if err := w.Barrier(); err != nil {
		t.Errorf("Barrier after errors: %v", err)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Op: "MPI_Alltoallv", Code: 3, Msg: "MPI_ERR_COUNT: invalid count argument"}
	if got, want := e.Error(), "mpi: MPI_Alltoallv: MPI_ERR_COUNT: invalid count argument"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
