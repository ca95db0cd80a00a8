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
	j := &runningJob{c: c, interactive: term.IsTerminal(int(os.Stdin.Fd()))}
	if !j.interactive {
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
	copied := j.copyOutput(errR, outR)
	w := newJobWatcher(id, g)
	out, waitErr := j.wait(sigs)
	out.launcher = filepath.Base(l.argv[0])
	known := w.stop()
	code, line := j.end(out, waitErr, id, known, copied)
	g.standDown()
	if line != "" {
		return cli.WithCode(code, errors.New("lmdbio run: "+line))
	}
	return cli.Quiet(code)
}

// runningJob is a launcher runLaunch started, and what it read of the
// launcher's output.
type runningJob struct {
	c                *exec.Cmd
	interactive      bool // at a terminal: the launcher is in the foreground group
	errScan, outScan deathScanner
	muted            atomic.Bool // the launcher's stderr after a rank said its start-up outlasted its limit
}

// copyOutput passes the launcher's stderr and stdout on, through the
// banner filter and the death scanners; the channel is closed once both
// reached their end.
func (j *runningJob) copyOutput(errR, outR io.Reader) <-chan struct{} {
	var copies sync.WaitGroup
	copies.Go(func() {
		f := &bannerFilter{out: muteWriter{w: os.Stderr, muted: &j.muted, after: []byte(startup.Message)}}
		_, _ = io.Copy(io.MultiWriter(f, &j.errScan), errR)
		_ = f.flush()
	})
	copies.Go(func() { _, _ = io.Copy(io.MultiWriter(os.Stdout, &j.outScan), outR) })
	copied := make(chan struct{})
	go func() { copies.Wait(); close(copied) }()
	return copied
}

// wait passes signals on to the launcher until it exits, and returns how
// the job ended as far as lmdbio run itself saw it, and the launcher's
// wait error.
//
// A launcher that said a rank died but stays (mpirun does, now and then,
// stuck in PMIx) is stopped as the guard would stop it; so is one that
// stays after a rank said its start-up outlasted its limit (when many
// ranks end in MPI_Init at once, mpirun waits for them forever, in 4 of 5
// jobs of 130 ranks on one host).
func (j *runningJob) wait(sigs <-chan os.Signal) (jobOutcome, error) {
	done := make(chan error, 1)
	go func() { done <- j.c.Wait() }()
	var out jobOutcome
	linger := time.NewTicker(500 * time.Millisecond)
	defer linger.Stop()
	var stopped time.Time
	for {
		select {
		case <-linger.C:
			_, seen, died := firstDeath(&j.errScan, &j.outScan)
			failed, timedOut := startupTimedOut(&j.errScan, &j.outScan)
			switch {
			case stopped.IsZero() && (died && time.Since(seen) > launcherLinger || timedOut && time.Since(failed) > launcherLinger):
				out.ranksSaid = timedOut && !died
				if out.ranksSaid {
					j.muted.Store(true) // its abort (and, now and then, its crash) would only bury the rank's line
				}
				_ = j.c.Process.Signal(syscall.SIGTERM)
				stopped = time.Now()
			case !stopped.IsZero() && time.Since(stopped) > guardGrace:
				_ = j.c.Process.Kill()
			}
		case s := <-sigs:
			if stopSignals[s] {
				out.stoppedBy = s.(syscall.Signal)
			}
			// At a terminal, Ctrl-C and Ctrl-\ already reach the whole
			// foreground group; sending them again would escalate mpirun's abort.
			if j.interactive && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
				continue
			}
			_ = j.c.Process.Signal(s)
		case err := <-done:
			return out, err
		}
	}
}

// end kills what is left of the job on this host, waits for the last of
// the launcher's output, and maps the outcome to lmdbio's exit status and
// the line that says why ("" when the ranks said it). A failed job's
// leftovers in /dev/shm are removed.
func (j *runningJob) end(out jobOutcome, waitErr error, id string, known map[string]bool, copied <-chan struct{}) (int, string) {
	if !j.interactive {
		_ = syscall.Kill(-j.c.Process.Pid, syscall.SIGKILL)
	}
	ompiJobs(killJobProcs(id, leftoverGrace), known)
	select {
	case <-copied:
	case <-time.After(outputDrainWait): // something the launcher started holds its output
	}
	out.exitCode, out.signaled = waitStatus(j.c, waitErr)
	if d, _, ok := firstDeath(&j.errScan, &j.outScan); ok {
		out.death = &d
	}
	code, line := out.status()
	if code != cli.ExitOK {
		if err := cleanUpJob(id, known); err != nil {
			fmt.Fprintf(os.Stderr, "lmdbio run: cleaning up after the job: %v\n", err)
		}
	}
	return code, line
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
