package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
	"github.com/spf13/cobra"
)

type runOptions struct {
	ranks, nodes, perNode int
	launcherArgs          string
	dryRun                bool
}

// maxCount bounds -n, -N and --ranks-per-node, so no product of them
// overflows; no machine has more ranks.
const maxCount = 1 << 24

func newRunCommand() *cobra.Command {
	var opt runOptions
	cmd := &cobra.Command{
		Use:   "run [-n N] [-N NODES] [--ranks-per-node K] [--launcher-args ARGS] [--dry-run] [--] CMD [ARGS...]",
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

--launcher-args passes options of your own to srun or mpirun, written as on
their command line (shell quoting works); they come after lmdbio's and before
CMD, so they win where the launcher lets a later option override an earlier
one. --dry-run shows them in place.

Signals are forwarded to the launcher, which passes them on to the ranks. If
lmdbio run itself dies, even by SIGKILL, a guard process ends the job on this
host: it asks the launcher to stop, and kills it and every process of the job
here if it has not within 3 seconds.

The exit status follows lmdbio's contract whatever the launcher returns: 0
when every rank succeeded; 2 when a rank exited 2 (bad input or usage); 1
for any other failure. When a rank died by a signal, one line names it:
"lmdbio run: rank 2 on node7 was killed by signal 9 (SIGKILL)".
When the job fails, lmdbio run removes what the job's dead processes left in
/dev/shm on this host: lmdbio's segments and Open MPI's vader_segment files
of this job (never those of another job).`,
		Example: `  lmdbio run -n 4 -- lmdbio topology
  lmdbio run -n 8 -N 2 -- lmdbio digest /data/imagenet-lmdb
  lmdbio run --dry-run -n 4 -- ./train
  lmdbio run -n 4 --launcher-args '--mca btl self,vader --bind-to core' -- ./train`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, opt, args) },
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // flags after CMD belong to CMD
	f.IntVarP(&opt.ranks, "ranks", "n", 0, "number of ranks (default: the launcher's, e.g. the allocation's tasks)")
	f.IntVarP(&opt.nodes, "nodes", "N", 0, "number of nodes")
	f.IntVar(&opt.perNode, "ranks-per-node", 0, "ranks per node (virtual nodes of K ranks outside Slurm)")
	f.StringVar(&opt.launcherArgs, "launcher-args", "", "options for srun or mpirun, with shell quoting, put before CMD")
	f.BoolVar(&opt.dryRun, "dry-run", false, "print the command instead of running it")
	return cmd
}

func runRun(cmd *cobra.Command, opt runOptions, args []string) error {
	if err := opt.validate(cmd, args); err != nil {
		return err
	}
	launcherArgs, err := splitWords(opt.launcherArgs)
	if err != nil {
		return usagef("--launcher-args: %v", err)
	}
	l, err := planLaunch(launchRequest{
		ranks: opt.ranks, nodes: opt.nodes, perNode: opt.perNode, launcherArgs: launcherArgs, command: args,
		getenv: os.Getenv, lookPath: lookPath,
		flavor: topology.FlavorOf(mpi.LibraryVersion()),
		cores:  runtime.NumCPU(), root: os.Geteuid() == 0,
	})
	if err != nil {
		return usageError(err)
	}
	if opt.dryRun {
		fmt.Println(joinWords(append(append([]string{}, l.env...), l.argv...)))
		return nil
	}
	if l.note != "" {
		fmt.Fprintln(os.Stderr, "lmdbio run: "+l.note)
	}
	return runLaunch(l)
}

func (o runOptions) validate(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	for _, c := range []struct {
		name  string
		value int
	}{{"ranks", o.ranks}, {"nodes", o.nodes}, {"ranks-per-node", o.perNode}} {
		if f.Changed(c.name) && (c.value < 1 || c.value > maxCount) {
			return usagef("--%s %d: want 1 to %d", c.name, c.value, maxCount)
		}
	}
	if len(args) == 0 {
		return usagef("needs a CMD to run (lmdbio run -n N -- CMD ARGS...)")
	}
	// Checked here, not in every rank, so a bad value is said once and
	// no job starts. -N and --ranks-per-node replace it.
	if o.nodes == 0 && o.perNode == 0 {
		if _, err := topology.RanksPerNode(os.Getenv); err != nil {
			return inputError(err)
		}
	}
	return nil
}
