package main

import (
	"context"
	"sort"
	"strings"
	"testing"
)

// TestE2EAgentStdin: the job's stdin reaches the first learner, as under
// torchrun (lmdbio run --agent -- python3 - <script runs the script), and
// no other learner.
func TestE2EAgentStdin(t *testing.T) {
	requireMPI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time60s)
	defer cancel()
	c, read := command(ctx, t, baseEnv(), lmdbioBin, "run", "--agent", "-n", "2", "-N", "2", "--learners-per-node", "2",
		"--", "sh", "-c", `echo "$RANK:$(cat)"`)
	c.Stdin = strings.NewReader("from stdin\n")
	err := c.Run()
	r := result{args: c.Args}
	r.stdout, r.stderr = read()
	r.code = exitStatus(c, err)
	got := lines(r.stdout)
	sort.Strings(got)
	if r.code != 0 || strings.Join(got, "|") != "0:from stdin|1:|2:|3:" {
		t.Errorf("exit %d, learners read %q, want only rank 0 to read the job's stdin:\n%s", r.code, got, r)
	}
}
