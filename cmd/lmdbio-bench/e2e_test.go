package main

// End-to-end tests of the lmdbio-bench binary. TestMain builds it, and the
// product's lmdbio (which makes the datasets the kit measures), once.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	// kitBin and productBin are bin/lmdbio-bench and bin/lmdbio as built
	// by TestMain.
	kitBin, productBin string
	// mpirunPath is mpirun, or "" when it is not on PATH.
	mpirunPath string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lmdbio-bench-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	kitBin, productBin = filepath.Join(dir, "lmdbio-bench"), filepath.Join(dir, "lmdbio")
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gotool); err != nil {
		gotool = "go"
	}
	for bin, pkg := range map[string]string{kitBin: ".", productBin: "../lmdbio"} {
		if out, err := exec.Command(gotool, "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: building %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	mpirunPath, _ = exec.LookPath("mpirun")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// outcome is how one run of a binary ended.
type outcome struct {
	argv           []string
	code           int
	stdout, stderr string
	took           time.Duration
	timedOut       bool
}

func (o outcome) String() string {
	return fmt.Sprintf("$ %s\nexit %d after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(o.argv, " "), o.code, o.took, o.stdout, o.stderr)
}

// runBin runs name args to their end, or for a minute at most, in the
// test's environment without an enclosing job's MPI settings.
func runBin(t *testing.T, name string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = benchEnv(t.TempDir())
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	err := c.Run()
	o := outcome{argv: append([]string{name}, args...), code: -1, stdout: stdout.String(), stderr: stderr.String(),
		took: time.Since(start), timedOut: ctx.Err() != nil}
	if c.ProcessState == nil {
		t.Fatalf("%s: %v", name, err)
	}
	o.code = c.ProcessState.ExitCode()
	return o
}

// kit runs lmdbio-bench args.
func kit(t *testing.T, args ...string) outcome {
	t.Helper()
	return runBin(t, kitBin, args...)
}

// kitOnRanks runs lmdbio-bench args on n ranks of mpirun; env is given to
// the ranks.
func kitOnRanks(t *testing.T, n int, env []string, args ...string) outcome {
	t.Helper()
	argv := []string{"--oversubscribe", "-np", strconv.Itoa(n)}
	for _, kv := range env {
		argv = append(argv, "-x", kv)
	}
	return runBin(t, mpirunPath, append(append(argv, kitBin), args...)...)
}

// ourLines are the lines of stderr the kit wrote, not mpirun.
func ourLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "lmdbio") {
			out = append(out, l)
		}
	}
	return out
}

// checkRefused asserts how the kit refuses bad input: status 2, within
// seconds, nothing on stdout, one error line on stderr starting prefix and
// no crash.
func checkRefused(t *testing.T, o outcome, prefix string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
	switch {
	case o.code != 2:
		t.Errorf("exit status %d, want 2:\n%s", o.code, o)
	case o.stdout != "":
		t.Errorf("printed a report for bad input:\n%s", o)
	case len(lines) != 1 || !strings.HasPrefix(lines[0], prefix):
		t.Errorf("want one stderr line starting %q:\n%s", prefix, o)
	case o.timedOut || o.took > 20*time.Second:
		t.Errorf("took %v, want well under 20 s:\n%s", o.took, o)
	case strings.Contains(o.stderr, "goroutine ") || strings.Contains(o.stderr, "panic:"):
		t.Errorf("crashed:\n%s", o)
	}
}
