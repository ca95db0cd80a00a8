package reader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/mpi/mpitest"
)

// mpiLaunched is set when the test binary runs under an MPI launcher
// (mpirun, srun): then TestMain initialises MPI and the TestMPI tests run
// with the launcher's world. A plain `go test` leaves MPI alone, since the
// single-rank case is covered by the in-process tests.
var mpiLaunched bool

func TestMain(m *testing.M) {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"} {
		if os.Getenv(v) != "" {
			mpiLaunched = true
		}
	}
	if !mpiLaunched {
		os.Exit(m.Run())
	}
	mpitest.Main(m.Run)
}

// TestMPIStagger runs the stagger over the MPI world for several group sizes
// (any world size works), gathers every reader's turn timestamps at rank 0
// and checks the waves there. Each turn sleeps a little so that turns have a
// length and overlaps would show.
func TestMPIStagger(t *testing.T) {
	if !mpiLaunched {
		t.Skip("not under an MPI launcher (run scripts/mpi-tests.sh)")
	}
	const windows = 3
	w := mpi.World()
	size, rank := w.Size(), w.Rank()
	groups := slices.Compact([]int{0, 1, 2, max(1, size-1), size})
	for _, group := range groups {
		t.Run(fmt.Sprintf("group=%d", group), func(t *testing.T) {
			s, err := NewStagger(w, group, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := group > 0 && group < size; s.Enabled() != want {
				t.Errorf("Enabled = %v, want %v", s.Enabled(), want)
			}
			mine := make([]byte, 0, 16*windows)
			for win := range windows {
				if err := s.Acquire(win); err != nil {
					mpiFatal(t, err)
				}
				start := time.Now().UnixNano()
				time.Sleep(2 * time.Millisecond)
				end := time.Now().UnixNano()
				if err := s.Release(win); err != nil {
					mpiFatal(t, err)
				}
				mine = binary.LittleEndian.AppendUint64(mine, uint64(start))
				mine = binary.LittleEndian.AppendUint64(mine, uint64(end))
			}
			var all []byte
			if rank == 0 {
				all = make([]byte, size*len(mine))
			}
			if err := w.Gather(mine, all, 0); err != nil {
				mpiFatal(t, err)
			}
			verdict := []byte{0}
			if rank == 0 {
				turns := make([][]interval, size)
				for r := range size {
					for win := range windows {
						p := all[r*len(mine)+16*win:]
						turns[r] = append(turns[r], interval{
							start: int64(binary.LittleEndian.Uint64(p)),
							end:   int64(binary.LittleEndian.Uint64(p[8:])),
						})
					}
				}
				if err := checkWaves(turns, group); err != nil {
					t.Error(err)
					verdict[0] = 1
				}
			}
			// Every rank learns the outcome, so all of them pass or fail.
			if err := w.Bcast(verdict, 0); err != nil {
				mpiFatal(t, err)
			}
			if verdict[0] != 0 && rank != 0 {
				t.Error("rank 0 found the waves out of order")
			}
		})
	}
}

// TestMPIStaggerWindowMismatch: a reader whose predecessor sends the token
// of another window reports ErrProtocol instead of reading out of turn.
func TestMPIStaggerWindowMismatch(t *testing.T) {
	if !mpiLaunched {
		t.Skip("not under an MPI launcher (run scripts/mpi-tests.sh)")
	}
	w := mpi.World()
	if w.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	s, err := NewStagger(w, 1, nil) // collective: every rank
	if err != nil {
		mpiFatal(t, err)
	}
	switch w.Rank() {
	case 0:
		bad := binary.LittleEndian.AppendUint64(nil, 41) // window 41, this stagger's generation
		bad = binary.LittleEndian.AppendUint64(bad, s.gen)
		if err := w.Send(bad, 1, s.tag); err != nil {
			mpiFatal(t, err)
		}
	case 1:
		if err := s.Acquire(0); !errors.Is(err, ErrProtocol) {
			t.Errorf("Acquire = %v, want ErrProtocol", err)
		}
	}
	if err := w.Barrier(); err != nil {
		mpiFatal(t, err)
	}
}

// TestMPIStaggersShareComm: two staggers on one communicator (two loaders
// open at once) run side by side, each from its own goroutine, and neither
// takes the other's tokens: with one tag for both, a reader would drop the
// other's token as one of another generation and wait for it forever.
func TestMPIStaggersShareComm(t *testing.T) {
	if !mpiLaunched {
		t.Skip("not under an MPI launcher (run scripts/mpi-tests.sh)")
	}
	w := mpi.World()
	if w.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	const windows = 4
	var staggers [2]*Stagger
	for i := range staggers {
		s, err := NewStagger(w, 1, nil)
		if err != nil {
			mpiFatal(t, err)
		}
		staggers[i] = s
	}
	if staggers[0].tag == staggers[1].tag {
		t.Fatalf("both staggers send with tag %d", staggers[0].tag)
	}
	errs := make(chan error, len(staggers))
	for i, s := range staggers {
		go func() {
			for win := range windows {
				if w.Rank()%2 == i { // the two run their windows in opposite orders of time
					time.Sleep(time.Millisecond)
				}
				if err := s.Acquire(win); err != nil {
					errs <- err
					return
				}
				if err := s.Release(win); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range staggers {
		select {
		case err := <-errs:
			if err != nil {
				mpiFatal(t, err)
			}
		case <-time.After(30 * time.Second):
			mpiFatal(t, errors.New("two staggers on one communicator: stuck for 30 s"))
		}
	}
	if err := w.Barrier(); err != nil {
		mpiFatal(t, err)
	}
}

// mpiFatal ends the whole job: a rank stopping alone would leave the others
// blocked in MPI.
func mpiFatal(t *testing.T, err error) {
	t.Helper()
	t.Error(err)
	fmt.Fprintf(os.Stderr, "rank %d: %v\n", mpi.World().Rank(), err)
	mpi.Abort(1)
}
