package agreement

import (
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Comm is what the agreement needs of a communicator; *mpi.Comm has it,
// and a test may wrap one to record the collectives made.
type Comm interface {
	Rank() int
	Size() int
	AllreduceInt64(send, recv []int64, op mpi.Op) error
}

// Failure is what the ranks agreed on.
type Failure struct {
	Failed bool         // some rank failed
	Kind   failure.Kind // whose failure it is, when Failed
	Rank   int          // the rank (of the communicator) that had it, when Failed
}

// OnFailure makes every rank of c learn whether any rank failed: err is
// this rank's outcome, nil for none. Collective over c.
func OnFailure(c Comm, err error) (Failure, error) {
	f, _, e := OnFailureMax(c, err, nil)
	return f, e
}

// OnFailureMax is OnFailure carrying data: every rank also gets the
// element-wise maximum of every rank's vals, in the same allreduce.
// Collective over c.
func OnFailureMax(c Comm, err error, vals []int64) (Failure, []int64, error) {
	in := make([]int64, len(vals)+1)
	copy(in, vals)
	in[len(vals)] = key(err, c.Rank(), c.Size())
	out := make([]int64, len(in))
	if e := c.AllreduceInt64(in, out, mpi.Max); e != nil {
		return Failure{}, nil, e
	}
	return fromKey(out[len(vals)], c.Size()), out[:len(vals)], nil
}

// Own is err, this rank's failure, as the ranks agreed to report it: with
// the agreed Kind. nil stays nil.
func (f Failure) Own(err error) error {
	if err == nil || failure.KindOf(err) == f.Kind {
		return err
	}
	return failure.Mark(err, f.Kind)
}

// precedence lists the Kinds from the least pressing to the most: the one
// later in the list is the failure every rank reports. A caller's mistake
// or a bad launch is what the user must fix first, and bad input before a
// failure at run time, as the command line's exit status puts bad input
// first.
var precedence = []failure.Kind{failure.Internal, failure.Runtime, failure.Input, failure.Launch, failure.Argument}

// key orders the ranks' outcomes so that the largest is the failure every
// rank reports: 0 for none; else the Kind's place in precedence, then the
// lowest rank.
func key(err error, rank, size int) int64 {
	if err == nil {
		return 0
	}
	weight := 1 // a Kind that is in no list: the least pressing
	kind := failure.KindOf(err)
	for i, k := range precedence {
		if k == kind {
			weight = i + 1
		}
	}
	return int64(weight)*int64(size) + int64(size-rank)
}

// fromKey is the Failure of the largest key.
func fromKey(k int64, size int) Failure {
	if k == 0 {
		return Failure{}
	}
	weight := (k - 1) / int64(size)
	rank := size - int(k-weight*int64(size))
	return Failure{Failed: true, Kind: precedence[weight-1], Rank: rank}
}
