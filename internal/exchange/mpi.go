package exchange

import "github.com/lmdbio/lmdbio/mpi"

// OverMPI is the Transport of the node readers' own communicator.
func OverMPI(comm *mpi.Comm) Transport { return mpiTransport{comm} }

type mpiTransport struct{ comm *mpi.Comm }

func (t mpiTransport) Rank() int { return t.comm.Rank() }
func (t mpiTransport) Size() int { return t.comm.Size() }

// Isend wraps MPI_Isend (see mpi.Comm.Isend).
func (t mpiTransport) Isend(buf []byte, peer, tag int) (Request, error) {
	r, err := t.comm.Isend(buf, peer, tag)
	if err != nil {
		return nil, err
	}
	return mpiRequest{r}, nil
}

// Irecv wraps MPI_Irecv (see mpi.Comm.Irecv).
func (t mpiTransport) Irecv(buf []byte, peer, tag int) (Request, error) {
	if peer == AnySource {
		peer = mpi.AnySource
	}
	r, err := t.comm.Irecv(buf, peer, tag)
	if err != nil {
		return nil, err
	}
	return mpiRequest{r}, nil
}

// mpiRequest is an *mpi.Request: one pointer, so a Request made of it
// costs no allocation.
type mpiRequest struct{ r *mpi.Request }

func (q mpiRequest) Test() (bool, error) { return q.r.Test() }
func (q mpiRequest) Cancel()             { q.r.Cancel() }
func (q mpiRequest) Free()               { q.r.Free() }

func (q mpiRequest) Wait() (Status, error) {
	st, err := q.r.Wait()
	return Status{Source: st.Source, Count: st.Count}, err
}
