package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type runOptions struct {
	ranks, nodes, perNode int
	dryRun                bool
}

func newRunCommand() *cobra.Command {
	var opt runOptions
	cmd := &cobra.Command{
		Use:   "run [-n N] [-N NODES] [--ranks-per-node K] [--dry-run] [--] CMD [ARGS...]",
		Short: "Launch an MPI job with the launcher and flags this machine needs",
		Long: `

Inside a Slurm allocation (SLURM_JOB_ID set) it runs srun with the --mpi plugin
that fits the MPI lmdbio was built with (pmix for Open MPI, pmi2 for MPICH) and
--kill-on-bad-exit. Elsewhere it runs mpirun, adding --oversubscribe when N
exceeds the cores and --allow-run-as-root when run as root.

-N and --ranks-per-node place ranks on nodes under srun. Without an allocation
they emulate nodes on this host: every K consecutive ranks form one virtual node
(LMDBIO_RANKS_PER_NODE=K), which is how multi-node behaviour is tried on one
machine.

Signals are forwarded to the launcher, which passes them on to the ranks; the
exit status is the launcher's (non-zero when any rank failed), or 128+N when
the launcher itself was ended by signal N.`,
		Example: `  lmdbio run -n 4 -- lmdbio topology
  lmdbio run -n 8 -N 2 -- lmdbio digest /data/imagenet-lmdb
  lmdbio run --dry-run -n 4 -- ./train`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, opt, args) },
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // flags after CMD belong to CMD
	f.IntVarP(&opt.ranks, "ranks", "n", 0, "number of ranks (default: the launcher's, e.g. the allocation's tasks)")
	f.IntVarP(&opt.nodes, "nodes", "N", 0, "number of nodes")
	f.IntVar(&opt.perNode, "ranks-per-node", 0, "ranks per node (virtual nodes of K ranks outside Slurm)")
	f.BoolVar(&opt.dryRun, "dry-run", false, "print the command instead of running it")
	return cmd
}

func runRun(cmd *cobra.Command, opt runOptions, args []string) error {
	if err := opt.validate(cmd, args); err != nil {
		return err
	}
	l, err := planLaunch(launchRequest{
		ranks: opt.ranks, nodes: opt.nodes, perNode: opt.perNode, command: args,
		getenv: os.Getenv, lookPath: lookPath,
		flavor: topology.FlavorOf(mpi.LibraryVersion()),
		cores:  runtime.NumCPU(), root: os.Geteuid() == 0,
	})
	if err != nil {
		return usageError(err)
	}
	if opt.dryRun {
		fmt.Println(strings.Join(append(append([]string{}, l.env...), l.argv...), " "))
		return nil
	}
	if l.note != "" {
		fmt.Fprintln(os.Stderr, "lmdbio run: "+l.note)
	}
	return execForward(l)
}

func (o runOptions) validate(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	for _, c := range []struct {
		name  string
		value int
	}{{"ranks", o.ranks}, {"nodes", o.nodes}, {"ranks-per-node", o.perNode}} {
		if f.Changed(c.name) && c.value < 1 {
			return usagef("--%s %d: want at least 1", c.name, c.value)
		}
	}
	if len(args) == 0 {
		return usagef("run: no command given (lmdbio run -n N -- CMD ARGS...)")
	}
	// Checked here, not in every rank, so a bad value is said once and
	// no job starts. -N and --ranks-per-node replace it.
	if o.nodes == 0 && o.perNode == 0 {
		if _, err := topology.RanksPerNode(os.Getenv); err != nil {
			return usageError(err)
		}
	}
	return nil
}

// execForward runs the launcher, forwards signals to it and returns its
// exit status as an error. In a batch context (no terminal) the launcher gets
// a process group of its own, which is killed once it exits, so nothing it
// started outlives lmdbio run.
func execForward(l launch) error {
	c := exec.Command(l.argv[0], l.argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = append(os.Environ(), l.env...)
	interactive := term.IsTerminal(int(os.Stdin.Fd()))
	if !interactive {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	if err := c.Start(); err != nil {
		return usageError(fmt.Errorf("cannot start %s: %w", l.argv[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case s := <-sigs:
			// At a terminal, Ctrl-C and Ctrl-\ already reach the whole
			// foreground group; sending them again would escalate mpirun's abort.
			if interactive && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
				continue
			}
			_ = c.Process.Signal(s)
		case err := <-done:
			if !interactive {
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			}
			return launcherStatus(err)
		}
	}
}

// launcherStatus turns the launcher's end into lmdbio run's exit status.
func launcherStatus(err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	status := ee.Sys().(syscall.WaitStatus)
	code := status.ExitStatus()
	if status.Signaled() {
		code = 128 + int(status.Signal())
	}
	return quiet(code)
}
