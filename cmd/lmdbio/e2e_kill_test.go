package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shmDir is where POSIX shared-memory segments live.
const shmDir = "/dev/shm"

// shmSegments lists lmdbio's segments in /dev/shm with the creator pid in
// their names ("lmdbio.<job>.<pid>.<suffix>").
func shmSegments() map[string]int {
	ents, _ := os.ReadDir(shmDir)
	out := map[string]int{}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "lmdbio.") {
			continue
		}
		f := strings.SplitN(e.Name(), ".", 4)
		pid := 0
		if len(f) == 4 {
			pid, _ = strconv.Atoi(f[2])
		}
		out[e.Name()] = pid
	}
	return out
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// rankProcs finds the ranks of the job whose command lines carry marker:
// world rank -> pid.
func rankProcs(marker string) map[int]int {
	out := map[int]int{}
	for _, p := range procsWith(marker) {
		prog, rest, _ := strings.Cut(p.cmdline, " ")
		if prog != lmdbioBin && prog != filepath.Join(filepath.Dir(lmdbioBin), "lmdbio-bench") || strings.HasPrefix(rest, "run ") {
			continue // not a rank of lmdbio or of the kit (kitBinary), or lmdbio run itself
		}
		if r, err := strconv.Atoi(procEnv(p.pid, "OMPI_COMM_WORLD_RANK")); err == nil {
			out[r] = p.pid
		}
	}
	return out
}

// TestE2EKillMidEpoch: SIGKILL of a node leader or of a learner in the
// middle of an epoch ends the job non-zero within 10 s, leaves no process
// behind, and the next run starts clean and leaves no shared memory behind.
func TestE2EKillMidEpoch(t *testing.T) {
	requireMPI(t)
	if testing.Short() {
		t.Skip("kills MPI jobs; skipped with -short")
	}
	dir, want := genDB(t, "--records", "300", "--size", "2KiB,1KiB", "--order", "random")
	cases := []struct {
		name     string
		runFlags []string
		victim   int      // world rank
		extra    []string // digest's flags
	}{
		{"leader of the only node (rank 0)", nil, 0, nil},
		{"learner (rank 2)", nil, 2, nil},
		{"leader of the second node (rank 2 of -N 2)", []string{"-N", "2"}, 2, nil},
		{"learner on the first node (rank 1 of -N 2)", []string{"-N", "2"}, 1, nil},
		// Every window exchanges records between the nodes: the other node
		// reader is waiting for the dead one's messages.
		{"leader of the second node during exchanges (rank 2 of -N 2, global shuffle)", []string{"-N", "2"}, 2,
			[]string{"--shuffle", "global", "--locality", "off", "--cache", "0"}},
	}
	before := shmSegments()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Many epochs of one-record batches keep the job busy until it is
			// killed; a unique data path marks its processes.
			data := filepath.Join(t.TempDir(), "ds")
			copyDir(t, dir, data)
			args := append(append([]string{"run", "-n", "4"}, c.runFlags...), "--", lmdbioBin, "digest",
				"--batch", "1", "--window", "1MiB", "--prefetch", "1", "--epochs", "1000000")
			args = append(append(args, c.extra...), data)
			c2, read, stdoutPath := commandOut(t.Context(), t, baseEnv(), lmdbioBin, args...)
			if err := c2.Start(); err != nil {
				t.Fatal(err)
			}
			defer checkNoneLeft(t, data, 2*time.Second)
			var ranks map[int]int
			started := waitFor(20*time.Second, func() bool {
				ranks = rankProcs(data)
				out, _ := os.ReadFile(stdoutPath)
				return len(ranks) == 4 && bytes.Contains(out, []byte("epoch=2 "))
			})
			if !started {
				_ = syscall.Kill(-c2.Process.Pid, syscall.SIGKILL)
				_ = c2.Wait()
				o, e := read()
				t.Fatalf("the job did not get going: ranks %v\nstdout %.500s\nstderr %s", ranks, o, e)
			}
			var pids []int
			for _, pid := range ranks {
				pids = append(pids, pid)
			}
			if err := syscall.Kill(ranks[c.victim], syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			done := make(chan error, 1)
			go func() { done <- c2.Wait() }()
			select {
			case err := <-done:
				o, e := read()
				r := result{args: c2.Args, stdout: lastLines(o, 3), stderr: e, code: exitStatus(c2, err), elapsed: time.Since(killed)}
				if r.code == 0 {
					t.Errorf("exit status 0 after a rank was killed:\n%s", r)
				}
				checkNoPanic(t, r)
				t.Logf("job ended %v after the kill, status %d", r.elapsed.Round(time.Millisecond), r.code)
			case <-time.After(10 * time.Second):
				t.Errorf("lmdbio run still running 10 s after rank %d was killed; ranks left: %v", c.victim, procsWith(data))
				_ = c2.Process.Kill()
				<-done
			}
			checkNoneLeft(t, data, 2*time.Second)
			for name, pid := range shmSegments() {
				if slices.Contains(pids, pid) {
					t.Logf("left by the killed job, for the next run to sweep: %s", name)
				}
			}

			// The next run on the same node starts clean.
			next := lmdbio(t, nil, append(append([]string{"run", "-n", "4"}, c.runFlags...), "--", lmdbioBin, "digest", data)...)
			checkDigest(t, next, want)
			for name, pid := range shmSegments() {
				if _, old := before[name]; old {
					continue
				}
				if slices.Contains(pids, pid) || !alive(pid) {
					t.Errorf("shared memory left behind: %s/%s", shmDir, name)
				}
			}
		})
	}
}

// lastLines keeps the last n lines of s, for reports on long outputs.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
