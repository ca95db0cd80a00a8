package mpi

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The tests run in one process (`go test`, a world of one rank) and under
// mpirun with any number of ranks (scripts/mpi-tests.sh): each test reads the
// world size and checks the semantics for that size. Every rank runs the same
// tests in the same order, so no test may call t.Parallel, and collective
// tests report with t.Error rather than stop early, which would leave the
// other ranks waiting.

// provided is the thread level Init returned.
var provided ThreadLevel

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(hostedEnv) == "1" {
		os.Exit(runHosted())
	}
	var err error
	if provided, err = Init(ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixBenchtime()
	quietBenchmarks()
	code := m.Run()
	// Every rank exits non-zero if a test failed on any rank.
	out := make([]int64, 1)
	if err := World().AllreduceInt64([]int64{int64(code)}, out, Max); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	} else {
		code = int(out[0])
	}
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// fixBenchtime makes benchmarks safe under several ranks: with a time-based
// -test.benchtime each rank picks its own b.N and stops at its own moment,
// and ranks with different iteration counts deadlock in the collectives. A
// fixed count (-test.benchtime=Nx) is the same on every rank.
func fixBenchtime() {
	f := flag.Lookup("test.benchtime")
	if World().Size() > 1 && f != nil && !strings.HasSuffix(f.Value.String(), "x") {
		if err := flag.Set("test.benchtime", "20x"); err != nil {
			panic(err)
		}
	}
}

// quietBenchmarks sends the standard output of ranks other than 0 to
// /dev/null when benchmarks run on several ranks, so the results are one
// readable table; failures still show in the exit status, which TestMain
// agrees over all ranks, and on standard error.
func quietBenchmarks() {
	f := flag.Lookup("test.bench")
	if World().Size() == 1 || World().Rank() == 0 || f == nil || f.Value.String() == "" {
		return
	}
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		os.Stdout = null
	}
}

// pat is the byte at offset i of the message from rank a to rank b: distinct
// for each (a, b) pair and offset, so misrouted or misplaced data fails.
func pat(a, b, i int) byte {
	return byte(a*131 + b*37 + i*7 + (i>>8)*13)
}

// fill writes the pattern of (a, b) into p.
func fill(p []byte, a, b int) {
	for i := range p {
		p[i] = pat(a, b, i)
	}
}

// checkPat reports the first byte of p not matching the pattern of (a, b).
func checkPat(t *testing.T, what string, p []byte, a, b int) {
	t.Helper()
	for i := range p {
		if p[i] != pat(a, b, i) {
			t.Errorf("%s: byte %d of %d from rank %d to %d is %#x, want %#x", what, i, len(p), a, b, p[i], pat(a, b, i))
			return
		}
	}
}

// sentinel fills p with a byte the patterns must not overwrite.
func sentinel(p []byte) {
	for i := range p {
		p[i] = 0xEE
	}
}

// asError returns err as *Error or fails the test.
func asError(t *testing.T, what string, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: got %v (%T), want *mpi.Error", what, err, err)
		return nil
	}
	if e.Msg == "" || e.Op == "" {
		t.Errorf("%s: incomplete error %#v", what, e)
	}
	if want := "mpi: " + e.Op + ": " + e.Msg; e.Error() != want {
		t.Errorf("%s: Error() = %q, want %q", what, e.Error(), want)
	}
	return e
}

// withMaxCount runs fn with the per-call count limit lowered to n, so that
// chunking and block datatypes are exercised with small buffers.
func withMaxCount(n int, fn func()) {
	old := maxCount
	maxCount = n
	defer func() { maxCount = old }()
	fn()
}

// prefixLayout returns counts and displacements packing counts back to back
// in rank order, and the total.
func prefixLayout(counts []int) (displs []int, total int) {
	displs = make([]int, len(counts))
	for r, c := range counts {
		displs[r] = total
		total += c
	}
	return displs, total
}

func TestInit(t *testing.T) {
	if provided != ThreadMultiple {
		t.Errorf("Init(ThreadMultiple) provided %v", provided)
	}
	again, err := Init(ThreadSingle)
	if err != nil || again != provided {
		t.Errorf("second Init = %v, %v; want %v, nil", again, err, provided)
	}
	if InitializedByHost() {
		t.Error("InitializedByHost is true, but the test called Init first")
	}
	if LibraryVersion() == "" {
		t.Error("LibraryVersion is empty")
	}
	w := World()
	if w.Size() < 1 || w.Rank() < 0 || w.Rank() >= w.Size() {
		t.Errorf("world rank %d of size %d", w.Rank(), w.Size())
	}
	if World() != w {
		t.Error("World returned a different communicator")
	}
	t.Logf("rank %d of %d, %s, %s", w.Rank(), w.Size(), provided, strings.SplitN(LibraryVersion(), "\n", 2)[0])
}

func TestThreadLevelString(t *testing.T) {
	for l, want := range map[ThreadLevel]string{
		ThreadSingle: "MPI_THREAD_SINGLE", ThreadFunneled: "MPI_THREAD_FUNNELED",
		ThreadSerialized: "MPI_THREAD_SERIALIZED", ThreadMultiple: "MPI_THREAD_MULTIPLE",
		ThreadLevel(9): "ThreadLevel(9)",
	} {
		if got := l.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(l), got, want)
		}
	}
	for o, want := range map[Op]string{Sum: "MPI_SUM", Max: "MPI_MAX", Min: "MPI_MIN", Op(7): "Op(7)"} {
		if got := o.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(o), got, want)
		}
	}
}
