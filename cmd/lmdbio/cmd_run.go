package main

import (
	"os"
	"os/exec"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/launch"
	"github.com/lmdbio/lmdbio/pkg/topology"
	"github.com/spf13/cobra"
)

type runOptions struct {
	ranks, nodes, perNode int
	launcherArgs          string
	dryRun                bool
	agent                 bool
	learners              int
}

// maxCount bounds -n, -N and --ranks-per-node, so no product of them
// overflows; no machine has more ranks.
const maxCount = 1 << 24

func newRunCommand() *cobra.Command {
	var opt runOptions
	cmd := &cobra.Command{
		Use:   "run [-n N] [-N NODES] [--ranks-per-node K | --agent --learners-per-node K] [--launcher-args ARGS] [--dry-run] [--] CMD [ARGS...]",
		Short: "Launch an MPI job with the launcher and flags this machine needs",
		Long: `

Inside a Slurm allocation (SLURM_JOB_ID set) it runs srun with the --mpi plugin
that fits the MPI lmdbio was built with (pmix for Open MPI, pmi2 for MPICH) and
--kill-on-bad-exit. Elsewhere it runs mpirun, adding --oversubscribe when N
exceeds the cores and --allow-run-as-root when run as root.

On this host (no hosts given in --launcher-args) lmdbio run raises the limit
on open files of mpirun, and so of its ranks, to the hard one (ulimit -Hn),
and refuses, before anything starts, more ranks than the host's limits hold:
mpirun keeps about 3.5 open files for each rank, and a rank takes at least 7
threads (pids: pid_max, threads-max, ulimit -u) and 8 MiB of available
memory. Past them mpirun fails half-way through starting the job, and hangs.

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
of this job (never those of another job).

AGENT MODE (learners without MPI, such as PyTorch DDP)

--agent --learners-per-node K starts CMD as torchrun would: K learner
processes on each node, none of them an MPI rank. lmdbio runs one agent per
node (srun --ntasks-per-node=1 inside an allocation; elsewhere -n NODES
ranks on this host, each its own emulated node); -n and -N both count nodes
(default: the allocation's nodes, or 1). Each agent starts its node's
learners with torchrun's environment: RANK (node*K + LOCAL_RANK),
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE,
MASTER_ADDR (the host of node 0) and MASTER_PORT (a port free there), unless
the job sets MASTER_ADDR or MASTER_PORT itself; OMP_NUM_THREADS=1 unless
set; and LMDBIO_AGENT_SOCKET, the agent's socket. lmdbio's C library and
Python package in a learner go through it: the agent is the node's reader,
and the agents agree across nodes on every open and sum the learners make
(every learner makes the same calls in the same order, or all get an error
that names the one that differs). torch.distributed uses the rendezvous as
with torchrun: init_process_group(backend, init_method="env://").

A learner that fails (a non-zero exit, a signal, or leaving a loader without
closing it) ends the job within seconds, as with torchrun: its agent names
it, stops the node's other learners, and the other agents stop theirs; the
job exits 2 if the learner exited 2, else 1. When every learner exits 0,
the job exits 0. A learner whose agent died gets an error from its next
lmdbio call.`,
		Example: `  lmdbio run -n 4 -- lmdbio topology
  lmdbio run -n 8 -N 2 -- lmdbio digest /data/imagenet-lmdb
  lmdbio run --dry-run -n 4 -- ./train
  lmdbio run -n 4 --launcher-args '--mca btl self,vader --bind-to core' -- ./train
  lmdbio run --agent -N 2 --learners-per-node 4 -- python3 train.py /data/imagenet-lmdb`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, opt, args) },
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // flags after CMD belong to CMD
	f.IntVarP(&opt.ranks, "ranks", "n", 0, "number of ranks (default: the launcher's, e.g. the allocation's tasks)")
	f.IntVarP(&opt.nodes, "nodes", "N", 0, "number of nodes")
	f.IntVar(&opt.perNode, "ranks-per-node", 0, "ranks per node (virtual nodes of K ranks outside Slurm)")
	f.StringVar(&opt.launcherArgs, "launcher-args", "", "options for srun or mpirun, with shell quoting, put before CMD")
	f.BoolVar(&opt.agent, "agent", false, "start CMD as learners without MPI, torchrun's way, with an lmdbio agent per node (see AGENT MODE)")
	f.IntVar(&opt.learners, "learners-per-node", 0, "--agent: learner processes per node")
	f.BoolVar(&opt.dryRun, "dry-run", false, "print the command instead of running it")
	return cmd
}

func runRun(cmd *cobra.Command, opt runOptions, args []string) error {
	if err := opt.validate(cmd, args); err != nil {
		return err
	}
	return launch.Run(launch.Options{Ranks: opt.ranks, Nodes: opt.nodes, PerNode: opt.perNode, LauncherArgs: opt.launcherArgs,
		DryRun: opt.dryRun, Agent: opt.agent, Learners: opt.learners, Command: args})
}

func (o runOptions) validate(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	for _, c := range []struct {
		name  string
		value int
	}{{"ranks", o.ranks}, {"nodes", o.nodes}, {"ranks-per-node", o.perNode}} {
		if f.Changed(c.name) && (c.value < 1 || c.value > maxCount) {
			return cli.Usagef("--%s %d: want 1 to %d", c.name, c.value, maxCount)
		}
	}
	if len(args) == 0 {
		return cli.Usagef("needs a CMD to run (lmdbio run -n N -- CMD ARGS...)")
	}
	if _, err := exec.LookPath(args[0]); err != nil && !o.dryRun {
		// Said once, before a job starts: the launcher would say it in many
		// lines for every node. The nodes of a job see the same files as
		// the host that launches it; a dry run may be for other hosts.
		return cli.Usagef("CMD %s: not an executable file on this host's PATH or at that path", args[0])
	}
	switch {
	case o.agent && (o.learners < 1 || o.learners > launch.MaxLearners):
		return cli.Usagef("--agent needs --learners-per-node K, the learner processes to start on each node (1 to %d)", launch.MaxLearners)
	case o.agent && o.perNode > 0:
		return cli.Usagef("--ranks-per-node places MPI ranks; with --agent every node runs one agent, which starts --learners-per-node learners")
	case !o.agent && f.Changed("learners-per-node"):
		return cli.Usagef("--learners-per-node starts learners without MPI: it goes with --agent")
	}
	// Checked here, not in every rank, so a bad value is said once and
	// no job starts. -N and --ranks-per-node replace it, as --agent does.
	if o.nodes == 0 && o.perNode == 0 && !o.agent {
		if _, err := topology.RanksPerNode(os.Getenv); err != nil {
			return cli.InputError(err)
		}
	}
	return nil
}
