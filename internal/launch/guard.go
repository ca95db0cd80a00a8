package launch

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
)

// The guard is a small process lmdbio run starts beside the launcher. It
// waits on a pipe of which only lmdbio run holds the write end: lmdbio run
// writes "done" before it exits; if the pipe closes without it, lmdbio run
// has died (even by SIGKILL, which it cannot catch), and the guard ends the
// job as srun's death ends its step: SIGTERM to the launcher (once: a second
// one makes Open MPI's mpirun quit without ending its ranks), SIGKILL to the
// launcher after a grace period and to every process of the job left on
// this host, then the job's files in /dev/shm go.
//
// A parent-death signal on the launcher would not do: Linux sends it again
// each time the child is handed to another thread of the dying parent, and a
// Go program has many threads.
//
// The guard runs in its own process group, so a Ctrl-C or a signal to
// lmdbio run's group does not reach it. It holds the read ends of the
// launcher's output pipes too, and copies them out once lmdbio run is gone,
// so the launcher never writes into a pipe without a reader while it ends
// the job.

// GuardCommand is the hidden first argument that runs lmdbio as a guard:
// lmdbio __guard JOB-ID LAUNCHER-PID LAUNCHER-START, with the control pipe
// on stdin and the launcher's stderr and stdout on fds 3 and 4.
const GuardCommand = "__guard"

// guardGrace is how long the guard lets the launcher end the job itself.
const guardGrace = 3 * time.Second

// guard is lmdbio run's handle on its guard process.
type guard struct {
	cmd  *exec.Cmd
	ctl  *os.File // write end of the control pipe
	mu   sync.Mutex
	told map[string]bool
}

// startGuard starts the guard of job id, whose launcher is process pid
// started at start; stderr and stdout are the read ends of the launcher's.
func startGuard(id string, pid int, start uint64, stderr, stdout *os.File) (*guard, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer ctlR.Close()
	// /proc/self/exe is this very binary, even if its file was replaced
	// since it started.
	c := &exec.Cmd{Path: "/proc/self/exe", Args: []string{"lmdbio", GuardCommand, id, strconv.Itoa(pid), strconv.FormatUint(start, 10)}}
	c.Stdin, c.Stdout, c.Stderr = ctlR, os.Stdout, os.Stderr
	c.ExtraFiles = []*os.File{stderr, stdout}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		ctlW.Close()
		return nil, err
	}
	return &guard{cmd: c, ctl: ctlW, told: map[string]bool{}}, nil
}

// tell passes an Open MPI job ("dir|jobid") on to the guard, once.
func (g *guard) tell(ompiJob string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.told[ompiJob] {
		g.told[ompiJob] = true
		fmt.Fprintf(g.ctl, "ompi %s\n", ompiJob)
	}
}

// standDown tells the guard that lmdbio run ends normally and waits for it
// to exit.
func (g *guard) standDown() {
	if g == nil {
		return
	}
	g.mu.Lock()
	fmt.Fprintln(g.ctl, "done")
	g.ctl.Close()
	g.mu.Unlock()
	_ = g.cmd.Wait()
}

// RunGuard is the guard process (lmdbio GuardCommand ARGS...); it
// returns its exit status.
func RunGuard(args []string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGPIPE)
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "lmdbio: "+GuardCommand+" is started by lmdbio run")
		return cli.ExitUsage
	}
	id := args[0]
	pid, err1 := strconv.Atoi(args[1])
	start, err2 := strconv.ParseUint(args[2], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "lmdbio: "+GuardCommand+": bad launcher pid or start time")
		return cli.ExitUsage
	}
	known := map[string]bool{}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		word, rest, _ := strings.Cut(in.Text(), " ")
		switch word {
		case "done":
			return cli.ExitOK
		case "ompi":
			known[rest] = true
		}
	}
	// lmdbio run is gone: end the job.
	go func() { _, _ = io.Copy(os.Stderr, os.NewFile(3, "launcher stderr")) }()
	go func() { _, _ = io.Copy(os.Stdout, os.NewFile(4, "launcher stdout")) }()
	stopLauncher(pid, start)
	ompiJobs(killJobProcs(id, leftoverGrace), known)
	if err := cleanUpJob(id, known); err != nil {
		fmt.Fprintf(os.Stderr, "lmdbio run: cleaning up after the job: %v\n", err)
	}
	fmt.Fprintln(os.Stderr, "lmdbio run: lmdbio run died; its guard stopped the job")
	return cli.ExitFailure
}

// stopLauncher asks the launcher to end the job, and kills it if it has not
// done so within guardGrace.
func stopLauncher(pid int, start uint64) {
	if !running(pid, start) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(guardGrace)
	for running(pid, start) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
