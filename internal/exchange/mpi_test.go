package exchange_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/mpi"
)

// TestMPIExchangePieces runs exchanges over MPI whose parts are several
// pieces long, of sizes that are not multiples of a piece and differ by
// pair, some pairs empty but for their control word among 3 nodes or more;
// each part's records are small ones packed together, an empty one, and
// large ones sent from where they lie, one of them in several pieces. They
// are received in place and into a shared-memory segment with pwrite, and
// every byte received is checked. The nodes are the ranks, and then two
// nodes on every rank, so that at every world size, one rank too, some
// pair of nodes sends pieces through MPI.
func TestMPIExchangePieces(t *testing.T) {
	world := mpi.World()
	for _, k := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d nodes a rank", k), func(t *testing.T) {
			comms, err := pairComms(world, k)
			if err != nil {
				t.Fatal(err)
			}
			nodes := world.Size() * k
			errs := make(chan error, k)
			for i := range k {
				go func() { errs <- exchangePieces(hosted(comms, i), pieces(nodes, someEmpty(nodes))) }()
			}
			for range k {
				if err := <-errs; err != nil {
					t.Errorf("rank %d: %v", world.Rank(), err)
				}
			}
			for _, row := range comms {
				for _, c := range row {
					if err := c.Free(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

// pairComms returns k*k communicators of world's ranks: comms[i][j]
// carries the messages from the i-th node of a rank to the j-th of a rank.
func pairComms(world *mpi.Comm, k int) ([][]*mpi.Comm, error) {
	comms := make([][]*mpi.Comm, k)
	for i := range comms {
		for range k {
			c, err := world.Split(0, world.Rank())
			if err != nil {
				return nil, err
			}
			comms[i] = append(comms[i], c)
		}
	}
	return comms, nil
}

// hosted is the transport of the i-th of the k nodes every rank hosts:
// node rank*k+i of the world's size*k, over comms (see pairComms). With
// one node a rank it is exchange.OverMPI itself.
func hosted(comms [][]*mpi.Comm, i int) exchange.Transport {
	k := len(comms)
	if k == 1 {
		return exchange.OverMPI(comms[0][0])
	}
	h := hostedNode{i: i, rank: comms[0][0].Rank(), size: comms[0][0].Size()}
	for j := range k {
		h.out = append(h.out, exchange.OverMPI(comms[i][j]))
		h.in = append(h.in, exchange.OverMPI(comms[j][i]))
	}
	return h
}

type hostedNode struct {
	i, rank, size int
	out, in       []exchange.Transport // by the other node's index on its rank
}

func (h hostedNode) Rank() int { return h.rank*len(h.out) + h.i }
func (h hostedNode) Size() int { return h.size * len(h.out) }

func (h hostedNode) Isend(buf []byte, peer, tag int) (exchange.Request, error) {
	k := len(h.out)
	return h.out[peer%k].Isend(buf, peer/k, tag)
}

func (h hostedNode) Irecv(buf []byte, peer, tag int) (exchange.Request, error) {
	k := len(h.in)
	if peer != exchange.AnySource {
		return h.in[peer%k].Irecv(buf, peer/k, tag)
	}
	a := &anyOf{buf: buf}
	for _, in := range h.in {
		b := make([]byte, len(buf))
		r, err := in.Irecv(b, exchange.AnySource, tag)
		if err != nil {
			a.Cancel()
			return nil, err
		}
		a.reqs, a.bufs = append(a.reqs, r), append(a.bufs, b)
	}
	return a, nil
}

// anyOf is a receive from any node: one from every index, into buffers of
// their own; the first that completes is the receive's, the others are
// cancelled then.
type anyOf struct {
	buf  []byte
	reqs []exchange.Request
	bufs [][]byte
	done bool
	st   exchange.Status
	err  error
}

func (a *anyOf) Test() (bool, error) {
	if a.done {
		return true, a.err
	}
	for j, r := range a.reqs {
		if ok, err := r.Test(); ok {
			st, _ := r.Wait()
			k := len(a.reqs)
			a.st, a.err = exchange.Status{Source: st.Source*k + j, Count: copy(a.buf, a.bufs[j][:st.Count])}, err
			a.reqs = append(a.reqs[:j], a.reqs[j+1:]...)
			a.Cancel()
			a.done = true
			return true, err
		}
	}
	return false, nil
}

func (a *anyOf) Wait() (exchange.Status, error) {
	for !a.done {
		if ok, _ := a.Test(); !ok {
			time.Sleep(time.Millisecond)
		}
	}
	return a.st, a.err
}

func (a *anyOf) Cancel() {
	for _, r := range a.reqs {
		r.Cancel()
		_, _ = r.Wait()
	}
	a.reqs = nil
	a.done = true
}

func (a *anyOf) Free() {}
