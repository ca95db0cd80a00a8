package main

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runAgentJob runs lmdbio run --agent on 2 emulated nodes of 2 learners,
// each a shell running script.
func runAgentJob(t *testing.T, env []string, script string) result {
	t.Helper()
	return lmdbio(t, env, "run", "--agent", "-n", "2", "-N", "2", "--learners-per-node", "2", "--", "sh", "-c", script)
}

// TestE2EAgentEnvironment: every learner gets torchrun's variables, the
// same rendezvous, its agent's socket, and none of the agents' MPI.
func TestE2EAgentEnvironment(t *testing.T) {
	requireMPI(t)
	const script = `echo "$RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $GROUP_RANK $GROUP_WORLD_SIZE $OMP_NUM_THREADS|` +
		`$MASTER_ADDR:$MASTER_PORT|${LMDBIO_AGENT_SOCKET%.*}|${OMPI_COMM_WORLD_RANK:-no MPI}"`
	r := runAgentJob(t, nil, script)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r)
	}
	got := lines(r.stdout)
	sort.Strings(got)
	if len(got) != 4 {
		t.Fatalf("want one line per learner:\n%s", r)
	}
	master := strings.Split(got[0], "|")[1]
	for i, l := range got {
		f := strings.Split(l, "|")
		node := i / 2
		want := []string{
			strings.Join([]string{strconv.Itoa(i), strconv.Itoa(i % 2), "4", "2", strconv.Itoa(node), "2", "1"}, " "),
			master, "", "no MPI"}
		if len(f) != 4 || f[0] != want[0] || f[1] != master || !strings.HasPrefix(f[2], "@lmdbio.agent.") || f[3] != want[3] {
			t.Errorf("learner %d: %q, want %q", i, l, want)
		}
		if strings.HasSuffix(master, ":") || strings.HasPrefix(master, ":") {
			t.Errorf("no rendezvous: %q", master)
		}
	}
	if a, b := strings.Split(got[0], "|")[2], strings.Split(got[2], "|")[2]; a == b {
		t.Errorf("the nodes share the agent socket %q", a)
	}
	r = runAgentJob(t, []string{"MASTER_PORT=29555"}, `echo $MASTER_PORT`)
	if r.code != 0 || strings.Join(lines(r.stdout), " ") != "29555 29555 29555 29555" {
		t.Errorf("the job's own MASTER_PORT:\n%s", r)
	}
}

// TestE2EAgentLearnerFails: a learner that fails ends the job within 10 s,
// as torchrun does: exit 2 if it exited 2, else 1, one line of its agent
// naming it, and no process of the job left. Learners that all exit 0 end
// it with 0.
func TestE2EAgentLearnerFails(t *testing.T) {
	requireMPI(t)
	for _, c := range []struct {
		name, script string
		code         int
		line         string
	}{
		{"all exit 0", `exit 0`, 0, ""},
		{"exit 2", `[ "$RANK" = 3 ] && exit 2; exec sleep MARK`, 2, "learner rank 3 (local rank 1 of node 1 on "},
		{"exit 7", `[ "$RANK" = 0 ] && exit 7; exec sleep MARK`, 1, "exited with status 7"},
		{"killed", `[ "$RANK" = 1 ] && kill -KILL $$; exec sleep MARK`, 1, "learner rank 1 (local rank 1 of node 0 on "},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := uniqueSleep()
			defer checkNoneLeft(t, marker, 2*time.Second)
			r := runAgentJob(t, nil, strings.ReplaceAll(c.script, "MARK", marker))
			if r.code != c.code || r.elapsed > 10*time.Second {
				t.Errorf("exit %d after %v, want %d within 10 s:\n%s", r.code, r.elapsed, c.code, r)
			}
			ours := linesWith(r.stderr, "lmdbio run --agent:")
			if c.line == "" && len(ours) != 0 || c.line != "" && (len(ours) != 1 || !strings.Contains(ours[0], c.line)) {
				t.Errorf("want one line with %q, got %q:\n%s", c.line, ours, r)
			}
			if c.name == "killed" && (len(ours) != 1 || !strings.HasSuffix(ours[0], "was killed by signal 9 (SIGKILL)")) {
				t.Errorf("the line does not name the signal: %q", ours)
			}
			checkNoPanic(t, r)
		})
	}
}

// TestE2EAgentStopped: a signal to lmdbio run reaches the learners through
// the agents, and the job ends.
func TestE2EAgentStopped(t *testing.T) {
	requireMPI(t)
	marker := uniqueSleep()
	defer checkNoneLeft(t, marker, 2*time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), time60s)
	defer cancel()
	c, read := command(ctx, t, baseEnv(), lmdbioBin, "run", "--agent", "-n", "2", "--learners-per-node", "2", "--", "sleep", marker)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(20*time.Second, func() bool { return countExact(procsWith(marker), "sleep "+marker) == 4 }) {
		t.Fatalf("the learners did not start: %v", procsWith(marker))
	}
	start := time.Now()
	_ = c.Process.Signal(syscall.SIGTERM)
	r := waitResult(c, read)
	if r.code != 1 || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d %v after SIGTERM, want 1 within 10 s:\n%s", r.code, time.Since(start), r)
	}
	if !strings.Contains(r.stderr, "lmdbio run: stopped by SIGTERM") {
		t.Errorf("lmdbio run does not say why the job stopped:\n%s", r)
	}
}

// TestE2EAgentUsage: mistakes in the agent's flags, and lmdbio's own MPI
// commands started as learners, stop with one line.
func TestE2EAgentUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"run", "--agent", "--", "true"}, "lmdbio run: --agent needs --learners-per-node K"},
		{[]string{"run", "--learners-per-node", "2", "--", "true"}, "lmdbio run: --learners-per-node starts learners without MPI"},
		{[]string{"run", "--agent", "--learners-per-node", "2", "--ranks-per-node", "2", "--", "true"}, "lmdbio run: --ranks-per-node places MPI ranks"},
		{[]string{"run", "--agent", "--learners-per-node", "2", "-n", "2", "-N", "1", "--", "true"}, "lmdbio run: --agent runs one agent per node"},
	} {
		checkOneLineError(t, lmdbio(t, nil, c.args...), 2, c.line)
	}
	requireMPI(t)
	r := lmdbio(t, nil, "run", "--agent", "--learners-per-node", "1", "--", lmdbioBin, "topology")
	if r.code != 2 || !strings.Contains(r.stderr, "lmdbio: this lmdbio command runs as MPI ranks, but lmdbio run --agent started it as a learner") {
		t.Errorf("lmdbio topology as a learner: exit %d, want 2 and a line that says how to run it:\n%s", r.code, r)
	}
}
