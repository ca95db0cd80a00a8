package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2EUsageErrors: mistakes on the command line end with status 2 and
// one line, no usage dump and no trace.
func TestE2EUsageErrors(t *testing.T) {
	cases := [][]string{
		{"run", "-n", "0", "--", "true"},
		{"run", "-n", "abc", "--", "true"},
		{"run", "-n", "2"},
		{"run", "--no-such-flag", "--", "true"},
		{"run", "-N", "0", "-n", "2", "--", "true"},
		{"run", "--ranks-per-node", "-1", "-n", "2", "--", "true"},
		{"no-such-command"},
		{"--no-such-flag"},
		{"topology", "extra-argument"},
		{"doctor", "extra-argument"},
		{"digest"},
		{"digest", "a", "b"},
		{"digest", "--batch", "0", "x"},
		{"digest", "--epochs", "0", "x"},
		{"digest", "--mode", "nonsense", "x"},
		{"digest", "--window", "lots", "x"},
		{"digest", "--max-gap", "-1", "x"},
		{"info"},
		{"info", "--bogus", "x"},
		{"index"},
		{"gen"},
		{"gen", "--records", "x", "--out", "d"},
		{"gen", "--size", "big", "--out", "d"},
		{"gen", "--size", "0", "--out", "d"},
		{"gen", "--order", "sideways", "--out", "d"},
		{"mpibench", "--bogus"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := lmdbio(t, nil, args...)
			checkOneLineError(t, r, 2, "lmdbio: ")
			if strings.Contains(r.stdout+r.stderr, "Usage:") {
				t.Errorf("usage dumped:\n%s", r)
			}
		})
	}
}

// TestE2ERunDryRun: the printed command is what this machine needs.
func TestE2ERunDryRun(t *testing.T) {
	requireMPI(t)
	r := lmdbio(t, nil, "run", "--dry-run", "-n", "4", "--", "true")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r)
	}
	ls := lines(r.stdout)
	if len(ls) != 1 {
		t.Fatalf("want one line:\n%s", r)
	}
	f := strings.Fields(ls[0])
	if !strings.Contains(f[0], "mpirun") && !strings.Contains(f[0], "mpiexec") {
		t.Errorf("launcher %q is not mpirun:\n%s", f[0], r)
	}
	if f[len(f)-1] != "true" {
		t.Errorf("command does not end with the user's command:\n%s", r)
	}
	if !strings.Contains(ls[0], "-n 4") && !strings.Contains(ls[0], "-np 4") {
		t.Errorf("no rank count in %q", ls[0])
	}
	openMPI := strings.Contains(f[0], "mpirun")
	if openMPI && (4 > numCPU()) && !slices.Contains(f, "--oversubscribe") {
		t.Errorf("4 ranks on %d cores without --oversubscribe: %q", numCPU(), ls[0])
	}
	if openMPI && os.Geteuid() == 0 && !slices.Contains(f, "--allow-run-as-root") {
		t.Errorf("running as root without --allow-run-as-root: %q", ls[0])
	}
	// Nothing ran: a dry run of a command that does not exist succeeds too.
	r = lmdbio(t, nil, "run", "--dry-run", "-n", "2", "--", "/no/such/program")
	if r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.stdout), "/no/such/program") {
		t.Errorf("dry run of a missing program:\n%s", r)
	}
}

// TestE2ERunFailingRank: one rank exiting 1 ends the job, non-zero, and no
// rank is left running.
func TestE2ERunFailingRank(t *testing.T) {
	requireMPI(t)
	marker := fmt.Sprintf("e2e-failing-rank-%d", time.Now().UnixNano())
	script := `if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then exit 1; fi; sleep 30 # ` + marker
	r := execute(t, 30*time.Second, baseEnv(), lmdbioBin, "run", "-n", "3", "--", "sh", "-c", script)
	if r.code == 0 || r.timedOut {
		t.Errorf("exit %d (timed out %v), want non-zero:\n%s", r.code, r.timedOut, r)
	}
	if r.elapsed > 10*time.Second {
		t.Errorf("took %v, want within 10 s", r.elapsed)
	}
	checkNoneLeft(t, marker, 2*time.Second)
	checkNoPanic(t, r)
}

// TestE2ERunSignal: SIGTERM to lmdbio run reaches the job, which ends at
// once with a non-zero status and leaves nothing behind.
func TestE2ERunSignal(t *testing.T) {
	requireMPI(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := fmt.Sprintf("%d.%d", 3000+time.Now().Nanosecond()%1000, time.Now().UnixNano()%1e9)
			c, read := command(t.Context(), t, baseEnv(), lmdbioBin, "run", "-n", "2", "--", "sleep", marker)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer checkNoneLeft(t, marker, 2*time.Second)
			// Wait until both ranks run, so the signal meets a started job.
			if !waitFor(10*time.Second, func() bool { return countExact(procsWith(marker), "sleep "+marker) == 2 }) {
				_ = c.Process.Kill()
				t.Fatalf("the ranks did not start: %v", procsWith(marker))
			}
			start := time.Now()
			_ = c.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case err := <-done:
				stdout, stderr := read()
				r := result{args: c.Args, stdout: stdout, stderr: stderr, code: exitStatus(c, err), elapsed: time.Since(start)}
				if r.code == 0 {
					t.Errorf("exit status 0 after %v, want non-zero:\n%s", sig, r)
				}
				checkNoPanic(t, r)
			case <-time.After(10 * time.Second):
				_ = c.Process.Kill()
				<-done
				t.Errorf("lmdbio run still running 10 s after %v", sig)
			}
		})
	}
}

func numCPU() int { return runtime.NumCPU() }

// countExact counts the processes whose command line is exactly cmd.
func countExact(ps []proc, cmd string) int {
	n := 0
	for _, p := range ps {
		if p.cmdline == cmd {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestE2ETopology: ranks, nodes and local sizes of a 4-rank job, with and
// without virtual nodes.
func TestE2ETopology(t *testing.T) {
	requireMPI(t)
	cases := []struct {
		name      string
		env       []string
		runFlags  []string
		nodes     []int
		localSize int
	}{
		{"one node", nil, nil, []int{0, 0, 0, 0}, 4},
		{"env 2 per node", []string{"LMDBIO_RANKS_PER_NODE=2"}, nil, []int{0, 0, 1, 1}, 2},
		{"-N 2", nil, []string{"-N", "2"}, []int{0, 0, 1, 1}, 2},
		{"--ranks-per-node 2", nil, []string{"--ranks-per-node", "2"}, []int{0, 0, 1, 1}, 2},
		{"env 3 per node", []string{"LMDBIO_RANKS_PER_NODE=3"}, nil, []int{0, 0, 0, 1}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"run", "-n", "4"}, c.runFlags...), "--", lmdbioBin, "topology", "--json")
			r := lmdbio(t, c.env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d:\n%s", r.code, r)
			}
			ls := lines(r.stdout)
			if len(ls) != 4 {
				t.Fatalf("want 4 lines:\n%s", r)
			}
			for i, l := range ls {
				var rl rankLine
				if err := json.Unmarshal([]byte(l), &rl); err != nil {
					t.Fatalf("line %d not JSON: %v: %q", i, err, l)
				}
				if rl.Type != "rank" || rl.Rank != i || rl.Node != c.nodes[i] || rl.Host == "" || rl.Pid <= 0 {
					t.Errorf("line %d = %q: want type rank, rank %d, node %d", i, l, i, c.nodes[i])
				}
				want := c.localSize
				if want == 0 { // uneven: 3 + 1
					want = map[int]int{0: 3, 1: 1}[c.nodes[i]]
				}
				if rl.LocalSize != want {
					t.Errorf("line %d = %q: local_size %d, want %d", i, l, rl.LocalSize, want)
				}
			}
		})
	}
}

// TestE2ERanksPerNodeBad: a malformed LMDBIO_RANKS_PER_NODE is bad usage,
// said once.
func TestE2ERanksPerNodeBad(t *testing.T) {
	for _, v := range []string{"x", "0", "-2", "1.5"} {
		t.Run(v, func(t *testing.T) {
			env := []string{"LMDBIO_RANKS_PER_NODE=" + v}
			r := lmdbio(t, env, "topology", "--json")
			checkOneLineError(t, r, 2, "lmdbio: ")
			if !strings.Contains(r.stderr, "LMDBIO_RANKS_PER_NODE") {
				t.Errorf("error does not name the variable:\n%s", r)
			}
			if mpirunPath == "" || v != "x" { // one bad value is enough under MPI
				return
			}
			r = lmdbio(t, env, "run", "-n", "4", "--", lmdbioBin, "topology")
			checkMPIError(t, r, "lmdbio: ")
			if r.code != 2 {
				t.Errorf("exit status %d, want 2", r.code)
			}
			r = mpirun(t, 4, env, "topology")
			checkMPIError(t, r, "lmdbio: ")
		})
	}
}

// TestE2EDoctorJSON: every line of doctor --json is a check.
func TestE2EDoctorJSON(t *testing.T) {
	r := lmdbio(t, nil, "doctor", "--json")
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d, want 0 or 1:\n%s", r.code, r)
	}
	ls := lines(r.stdout)
	if len(ls) == 0 {
		t.Fatalf("no output:\n%s", r)
	}
	failed := false
	names := map[string]bool{}
	for _, l := range ls {
		var c map[string]any
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Errorf("not a JSON object: %q: %v", l, err)
			continue
		}
		name, _ := c["name"].(string)
		verdict, _ := c["verdict"].(string)
		if c["type"] != "check" || name == "" || !slices.Contains([]string{"ok", "warn", "fail"}, verdict) {
			t.Errorf("bad check line %q", l)
		}
		if names[name] {
			t.Errorf("check %q reported twice", name)
		}
		names[name] = true
		failed = failed || verdict == "fail"
	}
	if failed != (r.code == 1) {
		t.Errorf("exit %d with a failed check: %v", r.code, failed)
	}
	if !names["/dev/shm"] {
		t.Errorf("no /dev/shm check in %v", names)
	}
}
