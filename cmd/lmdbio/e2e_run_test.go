package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/launch"
	"github.com/lmdbio/lmdbio/internal/startup"
)

// TestE2EUsageErrors: mistakes on the command line end with status 2 and
// one line that names the command, no usage dump and no trace.
func TestE2EUsageErrors(t *testing.T) {
	cases := [][]string{
		{"run", "-n", "0", "--", "true"},
		{"run", "-n", "abc", "--", "true"},
		{"run", "-n", "2"},
		{"run", "--no-such-flag", "--", "true"},
		{"run", "-N", "0", "-n", "2", "--", "true"},
		{"run", "--ranks-per-node", "-1", "-n", "2", "--", "true"},
		{"run", "-n", "99999999999", "--", "true"},
		{"run", "-n", "4", "-N", "5", "--", "true"},
		{"run", "-n", "4", "-N", "3", "--", "true"},
		{"run", "-n", "8", "-N", "2", "--ranks-per-node", "2", "--", "true"},
		{"run", "-N", "2", "--", "true"},
		{"run", "--launcher-args", "--mca 'btl", "-n", "2", "--", "true"},
		{"run", "-n", "2", "--", "/no/such/program"},
		{"run", "-n", "2", "--", "no-such-program-on-path"},
		{"run", "-n", "2", "--", "/"},
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
		{"version", "extra"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := lmdbio(t, nil, args...)
			prefix := "lmdbio: "
			if !strings.HasPrefix(args[0], "-") && args[0] != "no-such-command" {
				prefix = "lmdbio " + args[0] + ": "
			}
			checkOneLineError(t, r, 2, prefix)
			if strings.Contains(r.stdout+r.stderr, "Usage:") {
				t.Errorf("usage dumped:\n%s", r)
			}
			checkNoRepeats(t, r.stderr)
		})
	}
	// What the user reads for the most common mistakes.
	for args, want := range map[string]string{
		"info":                  "lmdbio info: needs a PATH",
		"digest a b":            `lmdbio digest: takes PATH, got 2 arguments ("a" "b")`,
		"topology extra":        `lmdbio topology: takes no arguments (got "extra")`,
		"run -n abc -- true":    "lmdbio run: --ranks abc: not a whole number",
		"run -n 4 -N 5 -- true": "lmdbio run: -N 5 with -n 4: 1 of the nodes would have no rank",
	} {
		if r := lmdbio(t, nil, strings.Fields(args)...); strings.TrimSpace(r.stderr) != want {
			t.Errorf("lmdbio %s: stderr %q, want %q", args, r.stderr, want)
		}
	}
}

// checkNoRepeats fails when an error line says a prefix twice
// ("lmdbio: lmdbio: ", "reader: reader: ", "shm: create x: shm: ").
func checkNoRepeats(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range lines(stderr) {
		parts := strings.Split(l, ": ")
		seen := map[string]bool{}
		for i, p := range parts {
			if i > 0 && (p == parts[i-1] || strings.HasSuffix(parts[i-1], " "+p)) || seen[p] && cli.IsPackageName(p) {
				t.Errorf("repeated prefix %q in %q", p, l)
			}
			seen[p] = true
		}
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
	// The user's launcher options come after lmdbio's, before the command,
	// quoted so the line can be pasted into a shell.
	r = lmdbio(t, nil, "run", "--dry-run", "-n", "2", "--launcher-args", `--mca btl self,vader -x "GREETING=hello world"`,
		"--", "sh", "-c", "echo $GREETING")
	if want := ` --mca btl self,vader -x 'GREETING=hello world' sh -c 'echo $GREETING'`; r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.stdout), want) {
		t.Errorf("dry run with launcher args: want a line ending %q:\n%s", want, r)
	}
}

// TestE2ERunLauncherArgs: options given with --launcher-args reach the
// launcher.
func TestE2ERunLauncherArgs(t *testing.T) {
	requireMPI(t)
	r := lmdbio(t, nil, "run", "-n", "2", "--launcher-args", `-x "GREETING=hello world"`, "--", "sh", "-c", `echo "$GREETING"`)
	if r.code != 0 || strings.Count(r.stdout, "hello world\n") != 2 {
		t.Errorf("want hello world from both ranks:\n%s", r)
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

// TestE2ERunStartupTimeout: a job whose many ranks all outlast their
// start-up limit ends with the one line of its first rank and status 1.
// mpirun waited forever for such a job in 4 of 5 runs of 130 ranks on one
// host; lmdbio run now stops it once the line is out.
func TestE2ERunStartupTimeout(t *testing.T) {
	requireMPI(t)
	r := execute(t, 90*time.Second, baseEnv(startup.Env+"=1ns"), lmdbioBin, "run", "-n", "130", "--", lmdbioBin, "topology")
	if r.timedOut || r.elapsed > 45*time.Second {
		t.Fatalf("the job took %v to end (timed out: %v):\n%s", r.elapsed, r.timedOut, r)
	}
	checkOneLineError(t, r, cli.ExitFailure, startup.Message)
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
		// Data only: advice in words is for the text report; a bad
		// verdict names its problem from a fixed vocabulary.
		if _, ok := c["advice"]; ok {
			t.Errorf("a JSON line carries advice: %s", l)
		}
		problem, _ := c["problem"].(string)
		if problem != "" && !slices.Contains([]string{"no-mpi", "untested-mpi", "not-found", "no-answer", "no-plugin", "no-shm", "small-shm", "low-limit"}, problem) {
			t.Errorf("problem %q is not in the vocabulary: %s", problem, l)
		}
		if (verdict == "fail") != (verdict == "fail" && problem != "") {
			t.Errorf("a failed check without its problem: %s", l)
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

// uniqueSleep returns a sleep duration unique to one test run: the ranks'
// command lines ("sleep 3123.456789") then mark the job's processes.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%d", 3000+time.Now().Nanosecond()%1000, time.Now().UnixNano()%1e9)
}

// TestE2ERunLauncherKilled: SIGKILL of lmdbio run, which it cannot catch,
// still ends the job within seconds, as srun's death ends its step: no
// rank is left.
func TestE2ERunLauncherKilled(t *testing.T) {
	requireMPI(t)
	for _, n := range []string{"1", "4"} {
		t.Run("n="+n, func(t *testing.T) {
			marker := uniqueSleep()
			c, read := command(t.Context(), t, baseEnv(), lmdbioBin, "run", "-n", n, "--", "sleep", marker)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer checkNoneLeft(t, marker, 0)
			want, _ := strconv.Atoi(n)
			if !waitFor(10*time.Second, func() bool { return countExact(procsWith(marker), "sleep "+marker) == want }) {
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				t.Fatalf("the ranks did not start: %v", procsWith(marker))
			}
			if err := c.Process.Kill(); err != nil { // lmdbio run alone, not its group
				t.Fatal(err)
			}
			_ = c.Wait()
			killed := time.Now()
			if !waitFor(6*time.Second, func() bool { return len(procsWith(marker)) == 0 }) {
				t.Errorf("6 s after lmdbio run was killed, the job still runs: %v", procsWith(marker))
			}
			t.Logf("job gone %v after the launcher was killed", time.Since(killed).Round(time.Millisecond))
			guard := fmt.Sprintf("%s run-%d-", launch.GuardCommand, c.Process.Pid)
			if !waitFor(5*time.Second, func() bool { return len(procsWith(guard)) == 0 }) {
				t.Errorf("the guard did not exit: %v", procsWith(guard))
			}
			_, stderr := read()
			if !strings.Contains(stderr, "lmdbio run: lmdbio run died; its guard stopped the job\n") {
				t.Errorf("the guard did not say what it did:\n%s", stderr)
			}
			checkNoPanic(t, result{stderr: stderr})
		})
	}
}

// kitBinary builds lmdbio-bench, whose mpibench is a job that stays in
// collectives as long as asked, beside the binary under test.
func kitBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(filepath.Dir(lmdbioBin), "lmdbio-bench")
	if !fileExists(bin) {
		if out, err := exec.Command(goTool(), "build", "-o", bin, "../lmdbio-bench").CombinedOutput(); err != nil {
			t.Fatalf("building lmdbio-bench: %v\n%s", err, out)
		}
	}
	return bin
}

// TestE2ERunRankKilled: a rank killed by a signal makes lmdbio run exit 1
// (not mpirun's 128+9) with one line naming the rank and the signal.
func TestE2ERunRankKilled(t *testing.T) {
	requireMPI(t)
	if testing.Short() {
		t.Skip("kills MPI jobs; skipped with -short")
	}
	// Ranks busy in collectives: the killed rank is the first thing that
	// goes wrong. (Loader ranks may notice a dead learner and abort first;
	// Open MPI then reports the abort, and their own line says what died.)
	iters := strconv.Itoa(100000000 + time.Now().Nanosecond()%1000000) // marks the job
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, read := command(ctx, t, baseEnv(), lmdbioBin, "run", "-n", "3", "--", kitBinary(t), "mpibench", "--size", "64KiB", "--iters", iters)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer checkNoneLeft(t, "--iters "+iters, 2*time.Second)
	var ranks map[int]int
	if !waitFor(20*time.Second, func() bool { ranks = rankProcs("--iters " + iters); return len(ranks) == 3 }) {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		t.Fatalf("the job did not start: %v", procsWith(iters))
	}
	time.Sleep(200 * time.Millisecond) // into the collectives
	if err := syscall.Kill(ranks[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := waitResult(c, read)
	if r.code != 1 {
		t.Errorf("exit %d, want 1:\n%s", r.code, r)
	}
	ours := linesWith(r.stderr, "lmdbio run:")
	if len(ours) != 1 || !strings.HasPrefix(ours[0], "lmdbio run: rank 1 ") || !strings.HasSuffix(ours[0], "was killed by signal 9 (SIGKILL)") {
		t.Errorf("want one line naming rank 1 and SIGKILL, got %q:\n%s", ours, r)
	}
}

// TestE2ERunExitStatus: whatever the launcher returns, lmdbio run exits 0,
// 1 or 2; a status outside the contract is said in one line.
func TestE2ERunExitStatus(t *testing.T) {
	requireMPI(t)
	for _, c := range []struct {
		script string
		code   int
		line   string
	}{
		{`exit 0`, 0, ""},
		{`[ "$OMPI_COMM_WORLD_RANK" = 1 ] && exit 2; exit 0`, 2, ""},
		{`[ "$OMPI_COMM_WORLD_RANK" = 1 ] && exit 1; exit 0`, 1, ""},
		{`[ "$OMPI_COMM_WORLD_RANK" = 0 ] && exit 3; exit 0`, 1, "exited with status 3"},
		// Open MPI names a rank killed by a signal when it has seen the
		// rank start; else it says 128+15, which lmdbio run explains.
		{`[ "$OMPI_COMM_WORLD_RANK" = 0 ] && kill -TERM $$; exit 0`, 1, "SIGTERM"},
	} {
		t.Run(c.script, func(t *testing.T) {
			r := lmdbio(t, nil, "run", "-n", "2", "--", "sh", "-c", c.script)
			if r.code != c.code {
				t.Errorf("exit %d, want %d:\n%s", r.code, c.code, r)
			}
			ours := linesWith(r.stderr, "lmdbio")
			if (c.line == "") != (len(ours) == 0) || (c.line != "" && (len(ours) != 1 || !strings.Contains(ours[0], c.line))) {
				t.Errorf("want lmdbio lines starting %q, got %q:\n%s", c.line, ours, r)
			}
		})
	}
}

// TestE2ERunCleansShm: when the job fails because its processes died by
// signal, lmdbio run removes what they left in /dev/shm (lmdbio segments
// of the job, Open MPI's vader_segment files of the job) and nothing of
// any other job.
func TestE2ERunCleansShm(t *testing.T) {
	requireMPI(t)
	if testing.Short() {
		t.Skip("kills MPI jobs; skipped with -short")
	}
	c, read, data, ranks := startBusyJob(t, 4)
	defer checkNoneLeft(t, data, 2*time.Second)
	// Files of other jobs whose processes are gone: they must stay. (Made
	// once the job runs: a new job's readers sweep dead jobs' segments.)
	deadPID := deadProcess(t)
	decoys := []string{
		fmt.Sprintf("vader_segment.%s.%d.%x.0", "e2ehost", os.Geteuid(), 0x7fff0001),
		fmt.Sprintf("lmdbio.e2e-other-job.%d.node0", deadPID),
	}
	for _, name := range decoys {
		p := filepath.Join(shmDir, name)
		if err := os.WriteFile(p, []byte("another job's"), 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
	}
	jobID, ompiJob := procEnv(ranks[0], "LMDBIO_JOB_ID"), procEnv(ranks[0], "OMPI_MCA_ess_base_jobid")
	if jobID == "" || ompiJob == "" {
		t.Fatalf("rank 0 has LMDBIO_JOB_ID=%q OMPI_MCA_ess_base_jobid=%q", jobID, ompiJob)
	}
	// A segment of this job left by a process that died before it could
	// remove it, as a reader killed while it sets up leaves one.
	leaked := filepath.Join(shmDir, fmt.Sprintf("lmdbio.%s.%d.node0", jobID, deadPID))
	if err := os.WriteFile(leaked, []byte("left by a dead reader"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(leaked)
	n, _ := strconv.ParseUint(ompiJob, 10, 32)
	vader := fmt.Sprintf(".%x.", n)
	if !waitFor(10*time.Second, func() bool { return len(shmFilesWith(vader)) == 4 }) {
		t.Fatalf("Open MPI made no vader files of job %x: %v", n, shmFilesWith("vader_segment"))
	}

	// Killing mpirun, the ranks' parent, makes them die without cleaning
	// up after them.
	mpirun := parentOf(ranks[0])
	if !strings.Contains(procCmdline(mpirun), "mpirun") {
		t.Fatalf("rank 0's parent %d is %q, not mpirun", mpirun, procCmdline(mpirun))
	}
	if err := syscall.Kill(mpirun, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(c, read); r.code != 1 {
		t.Errorf("exit %d, want 1:\n%s", r.code, r)
	}
	if left := shmFilesWith(vader); len(left) > 0 {
		t.Errorf("vader files of the job left: %v", left)
	}
	if _, err := os.Stat(leaked); err == nil {
		t.Errorf("the job's segment %s was left", leaked)
	}
	for _, name := range decoys {
		if _, err := os.Stat(filepath.Join(shmDir, name)); err != nil {
			t.Errorf("another job's file was removed: %v", err)
		}
	}
}

// parentOf returns the parent of process pid, 0 if it is gone.
func parentOf(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// procCmdline returns the command line of process pid.
func procCmdline(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '}))
}

// startBusyJob starts lmdbio run -n n with a digest of many epochs, which
// keeps the job busy until it is killed, and waits for its ranks. The
// dataset's path (data) is unique to the job and marks its processes;
// ranks maps world rank to pid. The job ends within a minute in any case.
func startBusyJob(t *testing.T, n int) (c *exec.Cmd, read func() (string, string), data string, ranks map[int]int) {
	t.Helper()
	dir, _ := genDB(t, "--records", "300", "--size", "2KiB,1KiB", "--order", "random")
	data = filepath.Join(t.TempDir(), "ds")
	copyDir(t, dir, data)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	c, read, stdout := commandOut(ctx, t, baseEnv(), lmdbioBin, "run", "-n", strconv.Itoa(n), "--", lmdbioBin, "digest",
		"--batch", "1", "--window", "1MiB", "--prefetch", "1", "--epochs", "1000000", data)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Running: every rank is there and the loader delivers epochs.
	if !waitFor(20*time.Second, func() bool {
		ranks = rankProcs(data)
		out, _ := os.ReadFile(stdout)
		return len(ranks) == n && bytes.Contains(out, []byte("epoch=1 "))
	}) {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		t.Fatalf("the job did not start: %v", procsWith(data))
	}
	return c, read, data, ranks
}

// waitResult waits for a started command and says how it ended (with the
// last lines of its output only).
func waitResult(c *exec.Cmd, read func() (string, string)) result {
	err := c.Wait()
	stdout, stderr := read()
	return result{args: c.Args, stdout: lastLines(stdout, 3), stderr: stderr, code: exitStatus(c, err)}
}

// linesWith returns the lines of s that start with prefix.
func linesWith(s, prefix string) []string {
	var out []string
	for _, l := range lines(s) {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// shmFilesWith lists the files in /dev/shm whose names contain s.
func shmFilesWith(s string) []string {
	ents, _ := os.ReadDir(shmDir)
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), s) {
			out = append(out, e.Name())
		}
	}
	return out
}

// deadProcess returns the pid of a process that has exited.
func deadProcess(t *testing.T) int {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// TestE2ESingletonSessionDir: lmdbio started without a launcher (an Open
// MPI singleton) does not depend on the session directory that all
// processes of the user share, where singletons started at once race
// (here: made unusable, as a losing racer finds it).
func TestE2ESingletonSessionDir(t *testing.T) {
	requireMPI(t)
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	tmp := shortTempDir(t)
	if err := os.WriteFile(filepath.Join(tmp, fmt.Sprintf("ompi.%s.%d", host, os.Geteuid())), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := lmdbio(t, []string{"TMPDIR=" + tmp}, "topology")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "rank=0 ") {
		t.Errorf("a singleton failed:\n%s", r)
	}
	ents, _ := os.ReadDir(tmp)
	if len(ents) != 1 {
		t.Errorf("the singleton left %d entries in TMPDIR, want only the planted one", len(ents))
	}
}

// fakeLauncher puts a script named like the launchers lmdbio run looks for
// first on PATH, and returns the environment that finds it.
func fakeLauncher(t *testing.T, script string) []string {
	dir := t.TempDir()
	for _, name := range []string{"mpirun.openmpi", "mpirun", "mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich", "mpiexec"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return baseEnv("PATH=" + dir + ":" + os.Getenv("PATH"))
}

// TestE2ERunLauncherLingers: a launcher that says a rank died and then
// does not end (mpirun stuck in PMIx does this now and then) is stopped:
// lmdbio run ends within seconds, with the rank's line and status 1.
func TestE2ERunLauncherLingers(t *testing.T) {
	env := fakeLauncher(t, `echo "mpirun noticed that process rank 1 with PID 0 on node n1 exited on signal 9 (Killed)." >&2
exec sleep 600
`)
	r := execute(t, 30*time.Second, env, lmdbioBin, "run", "-n", "2", "--", "true")
	if r.timedOut || r.elapsed > 15*time.Second {
		t.Errorf("lmdbio run took %v after the launcher reported a dead rank:\n%s", r.elapsed, r)
	}
	if r.code != 1 || !strings.Contains(r.stderr, "lmdbio run: rank 1 on n1 was killed by signal 9 (SIGKILL)\n") {
		t.Errorf("want status 1 and the rank's line:\n%s", r)
	}
}
