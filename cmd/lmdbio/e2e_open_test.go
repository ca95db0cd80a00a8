package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/shm/shmtest"
	"github.com/lmdbio/lmdbio/internal/startup"
	"golang.org/x/sys/unix"
)

// mpmd runs lmdbio under mpirun as several programs (MPI's MPMD form): each
// part is n ranks with its own environment and arguments.
type mpmdPart struct {
	n    int
	env  []string
	args []string
}

func mpmd(t *testing.T, parts ...mpmdPart) result {
	t.Helper()
	requireMPI(t)
	argv := []string{"--oversubscribe"}
	for i, p := range parts {
		if i > 0 {
			argv = append(argv, ":")
		}
		argv = append(argv, "-np", strconv.Itoa(p.n))
		for _, kv := range p.env {
			argv = append(argv, "-x", kv)
		}
		argv = append(append(argv, lmdbioBin), p.args...)
	}
	return execute(t, time60s, baseEnv(), mpirunPath, argv...)
}

// TestE2EOpenFailsOnOneNode: when one node cannot set up (here its shared
// memory has no room for the arena) after the other nodes' readers exist,
// every rank ends within seconds, non-zero, one error line, nothing left.
func TestE2EOpenFailsOnOneNode(t *testing.T) {
	dir, _ := genDB(t, "--records", "200", "--size", "64KiB")
	tiny := t.TempDir()
	if err := unix.Mount("tmpfs", tiny, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(tiny, unix.MNT_DETACH) })
	args := []string{"digest", "--cache", "0", "--views", "off", dir}
	r := mpmd(t, mpmdPart{2, []string{"LMDBIO_RANKS_PER_NODE=2"}, args},
		mpmdPart{2, []string{"LMDBIO_RANKS_PER_NODE=2", "LMDBIO_SHM_DIR=" + tiny}, args})
	checkMPIError(t, r, "lmdbio: ")
	if !strings.Contains(r.stderr, "shared memory") {
		t.Errorf("the error does not say what ran out:\n%s", r)
	}
	if entries, _ := os.ReadDir(tiny); len(entries) != 0 {
		t.Errorf("left in the small tmpfs: %v", entries)
	}
}

// TestE2ERanksDisagree: ranks started with different options stop at Open
// with one line naming the option and the ranks, instead of hanging.
func TestE2ERanksDisagree(t *testing.T) {
	dir, _ := genDB(t, "--records", "50", "--size", "1KiB")
	for _, c := range []struct {
		odd  []string
		name string
	}{{[]string{"--epochs", "2"}, "--epochs"}, {[]string{"--mode", "lmm"}, "--mode"},
		{[]string{"--shuffle", "global"}, "--shuffle"}, {[]string{"--batch", "3"}, "--batch"}} {
		start := time.Now()
		r := mpmd(t, mpmdPart{3, nil, []string{"digest", dir}}, mpmdPart{1, nil, append(append([]string{"digest"}, c.odd...), dir)})
		checkMPIError(t, r, "lmdbio: ")
		if !strings.Contains(r.stderr, "disagree on "+c.name) || !strings.Contains(r.stderr, "rank(s) 3") {
			t.Errorf("%v on rank 3 only: the error does not name the option and the rank:\n%s", c.odd, r)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("%v: took %v", c.odd, time.Since(start))
		}
	}
}

// TestE2ENumbersAtTheEdges: numbers far out of range are bad input, said in
// one line at once, on one rank and on four: no overflow, no hang, no
// allocation out of proportion.
func TestE2ENumbersAtTheEdges(t *testing.T) {
	dir, _ := genDB(t, "--records", "50", "--size", "1KiB")
	for _, args := range [][]string{
		{"--batch", "4611686018427387904"}, {"--batch", "9223372036854775807"}, {"--batch", "99999999999"},
		{"--epochs", "99999999999"}, {"--prefetch", "1000000"}, {"--io-depth", "1000000"},
		{"--window", "16EiB"}, {"--chunk-window", "0"}, {"--shuffle", "chunk", "--chunk", "0"},
		{"--cache", "1EiB"}, {"--cache", "10TiB"}, {"--shuffle", "sideways"}, {"--locality", "maybe"},
	} {
		all := append(append([]string{"digest"}, args...), filepath.Join(dir))
		for _, ranks := range []int{1, 4} {
			var r result
			if ranks == 1 {
				r = lmdbio(t, nil, all...)
			} else {
				r = mpirun(t, ranks, nil, all...)
			}
			if r.code != 2 || r.elapsed > 20*time.Second {
				t.Errorf("%v on %d ranks: exit %d after %v, want 2 at once:\n%s", args, ranks, r.code, r.elapsed, r)
			}
			checkNoPanic(t, r)
		}
	}
}

// TestE2EDigestBadPlaces: paths that cannot name a dataset, and a state
// file that could not be written at the end, are bad input said at once in
// one line, before anything is read.
func TestE2EDigestBadPlaces(t *testing.T) {
	dir, _ := genDB(t, "--records", "50", "--size", "1KiB")
	tmp := t.TempDir()
	loop := filepath.Join(tmp, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "plain", []byte("x"))
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"digest", loop}, "lmdbio: " + loop + ": "},
		{[]string{"digest", filepath.Join(file, "db")}, "lmdbio: " + filepath.Join(file, "db") + ": "},
		{[]string{"digest", "--state-out", tmp, dir}, "lmdbio: --state-out " + tmp + ": is a directory"},
		{[]string{"digest", "--state-out", filepath.Join(file, "s.json"), dir}, "lmdbio: --state-out " + filepath.Join(file, "s.json") + ": " + file + " is not a directory"},
		{[]string{"digest", "--mode", "lmdb", "--stop-after", "2", "--state-out", filepath.Join(tmp, "s.json"), dir},
			"lmdbio digest: --state-out: --mode lmdb reads by cursor"},
	} {
		checkBadInputQuickly(t, lmdbio(t, nil, c.args...), c.prefix)
	}
}

// TestE2EStartupWatchdog: a rank whose MPI start-up outlasts its limit (here
// a limit too short for any start-up) ends with one line naming the setting,
// and the launcher ends the other ranks, which still wait for it in MPI.
// When every rank outlasts it, the job still says so once.
func TestE2EStartupWatchdog(t *testing.T) {
	r := mpmd(t, mpmdPart{1, []string{startup.Env + "=1ns"}, []string{"topology"}},
		mpmdPart{1, nil, []string{"topology"}})
	checkMPIError(t, r, "lmdbio: MPI did not finish starting")
	if !strings.Contains(r.stderr, startup.Env) {
		t.Errorf("the error does not name %s:\n%s", startup.Env, r)
	}
	r = mpirun(t, 6, []string{startup.Env + "=1ns"}, "topology")
	checkMPIError(t, r, "lmdbio: MPI did not finish starting")
	r = lmdbio(t, []string{startup.Env + "=soon"}, "topology")
	checkOneLineError(t, r, cli.ExitUsage, "lmdbio: "+startup.Env)
}

// TestE2EHugePages: with the segments on a hugetlbfs (LMDBIO_SHM_DIR), a
// shuffled job on 2 nodes delivers every epoch exactly, takes its memory
// from the huge page pool and gives all of it back; a cache the pool
// cannot hold is refused up front, naming the pool.
func TestE2EHugePages(t *testing.T) {
	huge := shmtest.HugeDir(t, 96)
	dir, want := genDB(t, "--records", "300", "--size", "16KiB,4KiB")
	free := shmtest.FreeHugePages(t)
	env := []string{"LMDBIO_RANKS_PER_NODE=2", "LMDBIO_SHM_DIR=" + huge}
	r := mpirun(t, 4, env, "digest", "--shuffle", "global", "--epochs", "3", "--window", "8MiB", dir)
	if r.code != 0 || len(lines(r.stdout)) != 3 {
		t.Fatalf("3 epochs on huge pages:\n%s", r)
	}
	for i, l := range lines(r.stdout) {
		if l != fmt.Sprintf("epoch=%d %s", i, want) {
			t.Errorf("epoch %d: %q, want %s", i, l, want)
		}
	}
	if after := shmtest.FreeHugePages(t); after != free {
		t.Errorf("huge pages free: %d before the job, %d after", free, after)
	}
	r = lmdbio(t, []string{"LMDBIO_SHM_DIR=" + huge}, "digest", "--cache", "1TiB", "--epochs", "2", dir)
	checkOneLineError(t, r, cli.ExitUsage, "lmdbio: ")
	if !strings.Contains(r.stderr, "huge pages free") {
		t.Errorf("the refusal does not name the huge page pool:\n%s", r)
	}
}
