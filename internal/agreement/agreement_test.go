package agreement

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	out := make([]int64, 1) // every rank fails if a test failed on any
	if err := mpi.World().AllreduceInt64([]int64{int64(code)}, out, mpi.Max); err != nil || out[0] != 0 {
		code = 1
	}
	_ = mpi.Finalize()
	os.Exit(code)
}

var (
	badOption = failure.Mark(errors.New("x: bad option"), failure.Argument)
	launch    = failure.New(failure.Launch, "bad MPI launch")
	internal  = failure.Mark(errors.New("bug"), failure.Internal)
	onFire    = errors.New("disk on fire")
)

// TestKey: the ranks agree on the most pressing Kind and, among ranks with
// it, the lowest: a bad option that reached the other ranks as bad input is
// reported as the bad option it is, everywhere.
func TestKey(t *testing.T) {
	const size = 4
	for _, c := range []struct {
		errs [size]error
		want Failure
	}{
		{[size]error{}, Failure{}},
		{[size]error{nil, nil, fs.ErrNotExist, nil}, Failure{true, failure.Input, 2}},
		{[size]error{fs.ErrNotExist, badOption, fs.ErrNotExist, fs.ErrNotExist}, Failure{true, failure.Argument, 1}},
		{[size]error{onFire, nil, fs.ErrNotExist, nil}, Failure{true, failure.Input, 2}},
		{[size]error{launch, errors.New("rank 0: bad MPI launch"), nil, nil}, Failure{true, failure.Launch, 0}},
		{[size]error{nil, badOption, nil, badOption}, Failure{true, failure.Argument, 1}},
		{[size]error{internal, nil, nil, onFire}, Failure{true, failure.Runtime, 3}},
		{[size]error{nil, internal, internal, nil}, Failure{true, failure.Internal, 1}},
		{[size]error{launch, fs.ErrNotExist, badOption, onFire}, Failure{true, failure.Argument, 2}},
		{[size]error{onFire, onFire, onFire, onFire}, Failure{true, failure.Runtime, 0}},
	} {
		largest := int64(0)
		for rank, err := range c.errs {
			largest = max(largest, key(err, rank, size))
		}
		if got := fromKey(largest, size); got != c.want {
			t.Errorf("%v: %+v, want %+v", c.errs, got, c.want)
		}
	}
}

// TestKeyEveryKind: every Kind, at every rank of every size, comes back
// as itself.
func TestKeyEveryKind(t *testing.T) {
	if len(precedence) != len(failure.Kinds()) {
		t.Fatalf("precedence orders %d kinds of %d", len(precedence), len(failure.Kinds()))
	}
	for _, size := range []int{1, 2, 3, 1000} {
		for rank := range size {
			for _, k := range failure.Kinds() {
				got := fromKey(key(failure.Mark(onFire, k), rank, size), size)
				if got != (Failure{true, k, rank}) {
					t.Errorf("%v at rank %d of %d: %+v", k, rank, size, got)
				}
			}
		}
	}
}

func TestOwn(t *testing.T) {
	f := Failure{Failed: true, Kind: failure.Argument}
	if f.Own(nil) != nil {
		t.Error("Own(nil) is not nil")
	}
	if err := f.Own(badOption); err != badOption {
		t.Errorf("an error of the agreed kind changed: %v", err)
	}
	err := f.Own(fs.ErrNotExist)
	if failure.KindOf(err) != failure.Argument || !errors.Is(err, fs.ErrNotExist) || err.Error() != fs.ErrNotExist.Error() {
		t.Errorf("Own(%v) = %v of kind %v", fs.ErrNotExist, err, failure.KindOf(err))
	}
}

// TestOnFailure runs in a world of any size: each rank fails as its rank
// says, and every rank agrees alike.
func TestOnFailure(t *testing.T) {
	w := mpi.World()
	size, rank := w.Size(), w.Rank()
	f, err := OnFailure(w, nil)
	if err != nil || f != (Failure{}) {
		t.Errorf("nobody failed: %+v, %v", f, err)
	}
	mine := []error{onFire, fs.ErrNotExist, badOption}[rank%3]
	f, vals, err := OnFailureMax(w, mine, []int64{int64(rank), -int64(rank)})
	want := Failure{true, failure.Runtime, 0}
	switch {
	case size > 2:
		want = Failure{true, failure.Argument, 2}
	case size == 2:
		want = Failure{true, failure.Input, 1}
	}
	if err != nil || f != want || len(vals) != 2 || vals[0] != int64(size-1) || vals[1] != 0 {
		t.Errorf("rank %d of %d: %+v %v %v, want %+v and [%d 0]", rank, size, f, vals, err, want, size-1)
	}
	if err := f.Own(mine); failure.KindOf(err) != want.Kind {
		t.Errorf("rank %d reports kind %v, want %v", rank, failure.KindOf(err), want.Kind)
	}
}
