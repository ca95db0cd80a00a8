package loader_test

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/mpi"
)

// Collective helpers for the TestMPI tests. A failed MPI call leaves the
// ranks out of step, so it ends the job (mpi.Abort) rather than the test.

// must ends the whole job when a collective step itself failed.
func must(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d: MPI call failed: %v\n", job.Rank, err)
		mpi.Abort(1)
	}
}

// agree returns whether ok holds on every rank. A rank whose own check
// passed but another's failed marks its test failed too, naming what, so
// that every rank reports the same outcome.
func agree(t *testing.T, ok bool, what string) bool {
	t.Helper()
	mine := int64(0)
	if ok {
		mine = 1
	}
	out := make([]int64, 1)
	must(job.World.AllreduceInt64([]int64{mine}, out, mpi.Min))
	if out[0] == 0 && ok {
		t.Errorf("%s: failed on another rank", what)
	}
	return out[0] == 1
}

// minMax returns the smallest and largest v over the ranks.
func minMax(v int64) (lo, hi int64) {
	out := make([]int64, 1)
	must(job.World.AllreduceInt64([]int64{v}, out, mpi.Min))
	lo = out[0]
	must(job.World.AllreduceInt64([]int64{v}, out, mpi.Max))
	return lo, out[0]
}

// share sends rank 0's b to every rank, length first.
func share(b []byte) []byte {
	n := make([]byte, 8)
	binary.LittleEndian.PutUint64(n, uint64(len(b)))
	must(job.World.Bcast(n, 0))
	if job.Rank != 0 {
		b = make([]byte, binary.LittleEndian.Uint64(n))
	}
	must(job.World.Bcast(b, 0))
	return b
}

// allgatherInts returns every rank's v, by rank.
func allgatherInts(v []int64) [][]int64 {
	size := job.Size
	mine, lens := make([]byte, 8), make([]byte, 8*size)
	binary.LittleEndian.PutUint64(mine, uint64(len(v)))
	must(job.World.Allgather(mine, lens))
	counts := make([]int, size)
	for r := range counts {
		counts[r] = int(binary.LittleEndian.Uint64(lens[8*r:]))
	}
	byteCounts, displs := make([]int, size), make([]int, size)
	total := 0
	for r, c := range counts {
		byteCounts[r], displs[r] = 8*c, total
		total += 8 * c
	}
	send := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(send[8*i:], uint64(x))
	}
	recv := make([]byte, total)
	must(job.World.Allgatherv(send, recv, byteCounts, displs))
	all := make([][]int64, size)
	for r := range all {
		all[r] = make([]int64, counts[r])
		for i := range all[r] {
			all[r][i] = int64(binary.LittleEndian.Uint64(recv[displs[r]+8*i:]))
		}
	}
	return all
}

// fixture is an LMDB written by liblmdb and what liblmdb's cursor reads
// from it: entries[i] is record i, since records are numbered in key order.
type fixture struct {
	Dir     string // the database directory (on rank 0's machine)
	Entries []lmdbtest.Entry
	Depth   int
	Skip    string // why the tests cannot run (no python3-lmdb), on every rank
	Err     string // why writing failed, on every rank
}

// Records is the number of records.
func (fx *fixture) Records() int { return len(fx.Entries) }

var fixtures = map[string]*fixture{}

// makeFixture writes the database g describes once per test binary, on rank
// 0, and tells every rank where it is and what it holds. Collective.
func makeFixture(t *testing.T, name string, g lmdbtest.Gen) *fixture {
	t.Helper()
	fx, ok := fixtures[name]
	if !ok {
		var blob []byte
		if job.Rank == 0 {
			fx = writeFixture(filepath.Join(scratch, name), g)
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(fx); err != nil {
				fx = &fixture{Err: err.Error()}
				buf.Reset()
				_ = gob.NewEncoder(&buf).Encode(fx)
			}
			blob = buf.Bytes()
		}
		blob = share(blob)
		fx = new(fixture)
		if err := gob.NewDecoder(bytes.NewReader(blob)).Decode(fx); err != nil {
			fx = &fixture{Err: fmt.Sprintf("decoding rank 0's fixture: %v", err)}
		}
		fixtures[name] = fx
	}
	if fx.Skip != "" {
		t.Skip(fx.Skip)
	}
	if fx.Err != "" {
		t.Fatalf("fixture %s: %s", name, fx.Err)
	}
	return fx
}

// writeFixture runs on rank 0 only: lmdbtest reports through a testing.TB,
// and a Fatal there must not leave the other ranks waiting in a broadcast.
func writeFixture(dir string, g lmdbtest.Gen) (fx *fixture) {
	if !lmdbtest.Available() {
		return &fixture{Skip: "python3-lmdb, which writes the fixtures with liblmdb, is not installed"}
	}
	defer func() {
		if r := recover(); r != nil {
			stop, ok := r.(tbStop)
			if !ok {
				panic(r)
			}
			fx = &fixture{Err: string(stop)}
		}
	}()
	dataPath, entries := lmdbtest.Write(quietTB{}, dir, lmdbtest.Generate(g))
	f, err := os.Open(dataPath)
	if err != nil {
		return &fixture{Err: err.Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return &fixture{Err: err.Error()}
	}
	db, err := lmdbfmt.Open(f, st.Size())
	if err != nil {
		return &fixture{Err: err.Error()}
	}
	return &fixture{Dir: dir, Entries: entries, Depth: int(db.Meta().Depth)}
}

// tbStop carries a Fatal or Skip out of lmdbtest as a panic.
type tbStop string

// quietTB is the testing.TB writeFixture hands to lmdbtest: Fatal and Skip
// become panics that writeFixture recovers.
type quietTB struct{ testing.TB }

func (quietTB) Helper()                           {}
func (quietTB) Fatal(args ...any)                 { panic(tbStop(fmt.Sprint(args...))) }
func (quietTB) Fatalf(format string, args ...any) { panic(tbStop(fmt.Sprintf(format, args...))) }
func (quietTB) Skip(args ...any)                  { panic(tbStop("skipped: " + fmt.Sprint(args...))) }
func (quietTB) Skipf(format string, args ...any) {
	panic(tbStop("skipped: " + fmt.Sprintf(format, args...)))
}

// shareFile creates a file with content on rank 0 and returns its path on
// every rank. Collective.
func shareFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	var path string
	var err error
	if job.Rank == 0 {
		path = filepath.Join(scratch, name)
		err = os.WriteFile(path, content, 0o644)
	}
	if !agree(t, err == nil, "writing "+name) {
		t.Fatalf("writing %s: %v", name, err)
	}
	return string(share([]byte(path)))
}

// leakedSegments lists the shared-memory segments in /dev/shm that a process
// of this job created: their names are "lmdbio.<job>.<pid>.<suffix>".
// Collective.
func leakedSegments() []string {
	pids := allgatherInts([]int64{int64(os.Getpid())})
	ours := map[string]bool{}
	for _, p := range pids {
		ours[strconv.FormatInt(p[0], 10)] = true
	}
	entries, _ := os.ReadDir("/dev/shm")
	var leaked []string
	for _, e := range entries {
		fields := strings.SplitN(e.Name(), ".", 4)
		if len(fields) == 4 && fields[0] == "lmdbio" && ours[fields[2]] {
			leaked = append(leaked, e.Name())
		}
	}
	return leaked
}

// checkNoSegments fails the test on every rank when, with every rank past
// Close, /dev/shm still holds a segment of this job. Collective.
func checkNoSegments(t *testing.T) {
	t.Helper()
	must(job.World.Barrier())
	leaked := leakedSegments()
	if len(leaked) > 0 {
		t.Errorf("after Close on every rank, /dev/shm still holds %v", leaked)
	}
	agree(t, len(leaked) == 0, "shared memory left behind")
}
