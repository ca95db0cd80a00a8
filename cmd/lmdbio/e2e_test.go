package main

// End-to-end tests of the lmdbio binary. TestMain builds it once; the tests
// exec it (under mpirun where a test says so) and check what a user sees:
// exit status, stdout lines and the one stderr line of an error. Every exec
// has a deadline, so a hang fails the test instead of the suite.

import (
	"bytes"
	"context"
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
)

var (
	// lmdbioBin is the binary under test, built by TestMain.
	lmdbioBin string
	// mpirunPath is Open MPI's mpirun, or "" when it is not on PATH.
	mpirunPath string
	// e2eCacheDir is the index cache directory every exec is given, so the
	// tests never write into the user's ~/.cache.
	e2eCacheDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lmdbio-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	lmdbioBin = filepath.Join(dir, "lmdbio")
	e2eCacheDir = filepath.Join(dir, "cache")
	build := exec.Command(goTool(), "build", "-o", lmdbioBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building lmdbio: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	mpirunPath, _ = exec.LookPath("mpirun")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool finds the go command that runs these tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// requireMPI skips tests that need mpirun when it is not installed.
func requireMPI(t *testing.T) {
	t.Helper()
	if mpirunPath == "" {
		t.Skip("mpirun is not on PATH")
	}
}

// result is how one exec ended.
type result struct {
	args           []string
	stdout, stderr string
	code           int // exit status; -1 when ended by a signal
	elapsed        time.Duration
	timedOut       bool
}

func (r result) String() string {
	return fmt.Sprintf("%s\nexit %d after %v (timed out: %v)\nstdout:\n%s\nstderr:\n%s",
		strings.Join(r.args, " "), r.code, r.elapsed.Round(time.Millisecond), r.timedOut, r.stdout, r.stderr)
}

// baseEnv is the test process's environment without what would change how
// lmdbio launches or places ranks (an enclosing Slurm job or MPI job, a
// virtual node size), plus what mpirun needs as root in a container.
func baseEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "SLURM_"), strings.HasPrefix(name, "PMIX_"), strings.HasPrefix(name, "PMI_"),
			strings.HasPrefix(name, "OMPI_COMM_WORLD"), strings.HasPrefix(name, "OMPI_MCA_orte"),
			strings.HasPrefix(name, "OMPI_MCA_ess"), strings.HasPrefix(name, "OMPI_MCA_pmix"),
			strings.HasPrefix(name, "LMDBIO_"), name == "TMPDIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none", "LMDBIO_CACHE_DIR="+e2eCacheDir)
	return append(env, extra...)
}

// command prepares name args with env and a deadline. Output goes to files
// rather than pipes, so Wait returns when the process ends even if
// something it started still holds its output open. The process gets a
// process group of its own, killed when the deadline passes.
//
// read closes the output files and returns what they hold; stdoutPath lets
// a test watch the output of a process that still runs.
func command(ctx context.Context, t *testing.T, env []string, name string, args ...string) (c *exec.Cmd, read func() (string, string)) {
	c, read, _ = commandOut(ctx, t, env, name, args...)
	return c, read
}

func commandOut(ctx context.Context, t *testing.T, env []string, name string, args ...string) (*exec.Cmd, func() (string, string), string) {
	t.Helper()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = env
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }) {
		// A temporary directory of its own: Open MPI keeps its session
		// files under $TMPDIR/ompi.<host>.<uid>, where processes that
		// start and end at the same moment race (mkdir fails with "File
		// exists").
		c.Env = append(env, "TMPDIR="+shortTempDir(t))
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	dir := t.TempDir()
	stdout, err1 := os.Create(filepath.Join(dir, "stdout"))
	stderr, err2 := os.Create(filepath.Join(dir, "stderr"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	c.Stdout, c.Stderr = stdout, stderr
	read := func() (string, string) {
		stdout.Close()
		stderr.Close()
		o, _ := os.ReadFile(stdout.Name())
		e, _ := os.ReadFile(stderr.Name())
		return string(o), string(e)
	}
	return c, read, stdout.Name()
}

// shortTempDir is t.TempDir with a short path: sockets Open MPI makes in
// it must fit the 108 bytes of a socket address.
func shortTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "e2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// execute runs name args to the end or the deadline.
func execute(t *testing.T, timeout time.Duration, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, read := command(ctx, t, env, name, args...)
	start := time.Now()
	err := c.Run()
	r := result{args: append([]string{name}, args...), elapsed: time.Since(start), timedOut: ctx.Err() != nil}
	r.stdout, r.stderr = read()
	r.code = exitStatus(c, err)
	if err != nil && c.ProcessState == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func exitStatus(c *exec.Cmd, err error) int {
	if c.ProcessState == nil {
		return -1
	}
	return c.ProcessState.ExitCode()
}

// time60s bounds a command that should take a moment.
const time60s = 60 * time.Second

// lmdbio runs the binary with the base environment and extra variables.
func lmdbio(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return execute(t, time60s, baseEnv(env...), lmdbioBin, args...)
}

// mpirun runs lmdbio args on n ranks with plain mpirun; env is passed to
// the ranks with -x.
func mpirun(t *testing.T, n int, env []string, args ...string) result {
	t.Helper()
	requireMPI(t)
	argv := []string{"--oversubscribe", "-np", strconv.Itoa(n)}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		argv = append(argv, "-x", name)
	}
	argv = append(append(argv, lmdbioBin), args...)
	return execute(t, 60*time.Second, baseEnv(env...), mpirunPath, argv...)
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// panicMarks are what a Go runtime crash or a signal death prints.
var panicMarks = []string{"panic:", "goroutine ", "runtime error", "SIGSEGV", "fatal error:", "[signal "}

func checkNoPanic(t *testing.T, r result) {
	t.Helper()
	for _, m := range panicMarks {
		if strings.Contains(r.stderr, m) || strings.Contains(r.stdout, m) {
			t.Errorf("output carries a crash (%q):\n%s", m, r)
			return
		}
	}
}

// checkOneLineError asserts exit status code and that stderr is exactly
// one line that starts with prefix.
func checkOneLineError(t *testing.T, r result, code int, prefix string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d:\n%s", r.code, code, r)
	}
	ls := lines(r.stderr)
	if len(ls) != 1 || !strings.HasPrefix(ls[0], prefix) {
		t.Errorf("want exactly one stderr line starting %q:\n%s", prefix, r)
	}
	checkNoPanic(t, r)
}

// checkMPIError asserts how a job with a bad input ends under mpirun: non-zero,
// in time, and the lmdbio error line printed exactly once, with no crash.
// Other stderr lines are mpirun's own.
func checkMPIError(t *testing.T, r result, prefix string) {
	t.Helper()
	if r.code == 0 || r.timedOut {
		t.Errorf("exit status %d (timed out: %v), want non-zero:\n%s", r.code, r.timedOut, r)
	}
	if r.elapsed > 10*time.Second {
		t.Errorf("the job took %v to end, want within 10 s:\n%s", r.elapsed, r)
	}
	var ours []string
	for _, l := range lines(r.stderr) {
		if strings.HasPrefix(l, "lmdbio") {
			ours = append(ours, l)
		}
	}
	if len(ours) != 1 || !strings.HasPrefix(ours[0], prefix) {
		t.Errorf("want exactly one lmdbio line on stderr starting %q, got %q:\n%s", prefix, ours, r)
	}
	checkNoPanic(t, r)
}

// proc is a running process.
type proc struct {
	pid     int
	cmdline string
}

// procsWith lists the processes whose command line contains marker (a path
// or argument unique to one test), like pgrep -f.
func procsWith(marker string) []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie
		}
		cmd := string(bytes.TrimRight(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), " "))
		if strings.Contains(cmd, marker) {
			out = append(out, proc{pid, cmd})
		}
	}
	return out
}

// checkNoneLeft waits up to grace for the processes carrying marker to end
// and reports those that do not.
func checkNoneLeft(t *testing.T, marker string, grace time.Duration) {
	t.Helper()
	deadline := time.Now().Add(grace)
	for {
		left := procsWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				t.Errorf("process left behind: %d %s", p.pid, p.cmdline)
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// procEnv returns variable name of process pid, or "" if unset or unreadable.
func procEnv(pid int, name string) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k == name {
			return v
		}
	}
	return ""
}
