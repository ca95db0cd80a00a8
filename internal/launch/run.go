package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/internal/startup"
	"golang.org/x/term"
)

// How long lmdbio run waits for what a job leaves behind.
const (
	outputDrainWait = 2 * time.Second       // the launcher's output, after it exits
	launcherLinger  = 5 * time.Second       // the launcher, to end the job once it said a rank died
	leftoverGrace   = 2 * time.Second       // killed leftovers to be gone
	watchFirst      = 20 * time.Millisecond // first look for the job's processes
	watchFor        = time.Minute           // looks for the Open MPI job id
)

// stopSignals are the signals lmdbio run passes on to the launcher that end
// a job; the others it forwards (SIGUSR1, SIGUSR2) are for the ranks.
var stopSignals = map[os.Signal]bool{syscall.SIGINT: true, syscall.SIGTERM: true, syscall.SIGHUP: true, syscall.SIGQUIT: true}

// runLaunch runs the planned launcher and returns lmdbio run's outcome as
// an error (nil on success).
//
// The job is marked: the launcher and every process it starts on this host
// carry shm.JobIDEnv=<id>, so that lmdbio run can find them whatever
// process group or session they are in. A guard process ends the job if
// lmdbio run itself dies (even by SIGKILL), as srun's death ends its step.
// The launcher's output passes through lmdbio run, which reads the lines
// in which the launcher names a rank killed by a signal (on stderr, or
// stdout for MPICH's Hydra).
func runLaunch(l plan) error {
	id := newRunID()
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return err
	}
	defer errR.Close()
	c := exec.Command(l.argv[0], l.argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, outW, errW
	c.Env = append(append(os.Environ(), l.env...), shm.JobIDEnv+"="+id)
	// In a batch context (no terminal) the launcher gets a process group of
	// its own, killed once it exits. At a terminal it stays in the
	// foreground group, where Ctrl-C reaches it and it ends the job itself.
	interactive := term.IsTerminal(int(os.Stdin.Fd()))
	if !interactive {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	err = c.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return cli.InputError(fmt.Errorf("lmdbio run: cannot start %s: %w", l.argv[0], err))
	}
	launched, _ := procStart(c.Process.Pid)
	g, gerr := startGuard(id, c.Process.Pid, launched, errR, outR)
	if gerr != nil {
		fmt.Fprintf(os.Stderr, "lmdbio run: no guard for the job (%v): if lmdbio run is killed, the job may go on\n", gerr)
	}

	var errScan, outScan deathScanner
	var copies sync.WaitGroup
	var muted atomic.Bool // the launcher's stderr after a rank said its start-up outlasted its limit
	copies.Go(func() {
		f := &bannerFilter{out: muteWriter{w: os.Stderr, muted: &muted, after: []byte(startup.Message)}}
		_, _ = io.Copy(io.MultiWriter(f, &errScan), errR)
		_ = f.flush()
	})
	copies.Go(func() { _, _ = io.Copy(io.MultiWriter(os.Stdout, &outScan), outR) })
	copied := make(chan struct{})
	go func() { copies.Wait(); close(copied) }()
	w := newJobWatcher(id, g)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()

	out := jobOutcome{launcher: filepath.Base(l.argv[0])}
	var waitErr error
	// A launcher that said a rank died but stays (mpirun does, now and
	// then, stuck in PMIx) is stopped as the guard would stop it; so is
	// one that stays after a rank said its start-up outlasted its limit
	// (when many ranks end in MPI_Init at once, mpirun waits for them
	// forever, in 4 of 5 jobs of 130 ranks on one host).
	linger := time.NewTicker(500 * time.Millisecond)
	defer linger.Stop()
	var stopped time.Time
wait:
	for {
		select {
		case <-linger.C:
			_, seen, died := firstDeath(&errScan, &outScan)
			failed, timedOut := startupTimedOut(&errScan, &outScan)
			switch {
			case stopped.IsZero() && (died && time.Since(seen) > launcherLinger || timedOut && time.Since(failed) > launcherLinger):
				out.ranksSaid = timedOut && !died
				if out.ranksSaid {
					muted.Store(true) // its abort (and, now and then, its crash) would only bury the rank's line
				}
				_ = c.Process.Signal(syscall.SIGTERM)
				stopped = time.Now()
			case !stopped.IsZero() && time.Since(stopped) > guardGrace:
				_ = c.Process.Kill()
			}
		case s := <-sigs:
			if stopSignals[s] {
				out.stoppedBy = s.(syscall.Signal)
			}
			// At a terminal, Ctrl-C and Ctrl-\ already reach the whole
			// foreground group; sending them again would escalate mpirun's abort.
			if interactive && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
				continue
			}
			_ = c.Process.Signal(s)
		case waitErr = <-done:
			break wait
		}
	}
	known := w.stop()
	if !interactive {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
	ompiJobs(killJobProcs(id, leftoverGrace), known)
	select {
	case <-copied:
	case <-time.After(outputDrainWait): // something the launcher started holds its output
	}
	out.exitCode, out.signaled = waitStatus(c, waitErr)
	if d, _, ok := firstDeath(&errScan, &outScan); ok {
		out.death = &d
	}
	code, line := out.status()
	if code != cli.ExitOK {
		if err := cleanUpJob(id, known); err != nil {
			fmt.Fprintf(os.Stderr, "lmdbio run: cleaning up after the job: %v\n", err)
		}
	}
	g.standDown()
	if line != "" {
		return cli.WithCode(code, errors.New("lmdbio run: "+line))
	}
	return cli.Quiet(code)
}

// muteWriter drops what is written to it once muted is set, which it sets
// itself after it passed on a write holding after. A rank's line that its
// start-up outlasted its limit is the job's end, and all the launcher says
// after it is how it ends the job: mpirun, ending 129 ranks that were
// still in MPI_Init, printed a PMIx error for each one it could no longer
// write to.
type muteWriter struct {
	w     io.Writer
	muted *atomic.Bool
	after []byte
}

func (m muteWriter) Write(p []byte) (int, error) {
	if m.muted.Load() {
		return len(p), nil
	}
	n, err := m.w.Write(p)
	if len(m.after) > 0 && bytes.Contains(p, m.after) {
		m.muted.Store(true)
	}
	return n, err
}

// waitStatus reads the launcher's exit status, or the signal that ended it.
func waitStatus(c *exec.Cmd, err error) (code int, sig syscall.Signal) {
	if c.ProcessState == nil {
		return cli.ExitFailure, 0
	}
	ws := c.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal()
	}
	return ws.ExitStatus(), 0
}

// jobWatcher looks for the job's processes on this host while the job
// starts, to learn the Open MPI job id that names their files in /dev/shm
// (the processes may be gone when the job fails), and passes it on to the
// guard. It stops once it knows one, or after watchFor: it reads every
// process's environment, which is not free on a busy node.
type jobWatcher struct {
	id    string
	guard *guard
	quit  chan struct{}
	done  chan struct{}
	ompi  map[string]bool // "dir|jobid" keys, as ompiJobs makes them
}

func newJobWatcher(id string, g *guard) *jobWatcher {
	w := &jobWatcher{id: id, guard: g, quit: make(chan struct{}), done: make(chan struct{}), ompi: map[string]bool{}}
	go w.run()
	return w
}

func (w *jobWatcher) run() {
	defer close(w.done)
	every, until := watchFirst, time.Now().Add(watchFor)
	for len(w.ompi) == 0 && time.Now().Before(until) {
		select {
		case <-w.quit:
			return
		case <-time.After(every):
		}
		every = min(2*every, time.Second)
		ompiJobs(findJobProcs(w.id), w.ompi)
		for key := range w.ompi {
			w.guard.tell(key)
		}
	}
}

// stop ends the watching and returns the Open MPI jobs it learned.
func (w *jobWatcher) stop() map[string]bool {
	close(w.quit)
	<-w.done
	return w.ompi
}
