// Package launch is lmdbio run, the launcher, and lmdbio agent, the
// supervisor of a node's learners in agent mode.
//
// # Overview
//
//   - launch.go, plan.go: Run plans the launch for this machine (srun with
//     the --mpi plugin of the MPI lmdbio was built with inside a Slurm
//     allocation; elsewhere mpirun with the flags this host needs, virtual
//     nodes for -N), checks it against the host's limits (limits.go), and
//     runs it.
//   - run.go, banner.go, status.go, outcome.go: running the launcher:
//     signals passed on, Open MPI's banners summarised (and dropped after
//     the line of a rank that ended the job with lmdbio_abort, with the
//     same line of ranks that failed of it), the first rank that died by a
//     signal named, and the launcher's status mapped to lmdbio's exit
//     contract (0, 1, 2).
//   - guard.go, jobprocs.go: a guard process that ends the job on this host
//     if lmdbio run itself dies, and the cleaning of what a failed job left
//     in /dev/shm.
//   - agent.go, agent_learners.go, agent_exchange.go: RunAgent, one MPI
//     rank per node that starts the node's learners with torchrun's
//     environment and reads for them over internal/agent; it knows each
//     learner's processes, so that one that claims another's LOCAL_RANK is
//     refused.
//
// The command files (cmd/lmdbio/cmd_run.go, cmd_agent.go) parse and check
// the flags and call Run and RunAgent; bin/lmdbio's main runs RunGuard for
// GuardCommand.
//
// # Invariants
//
//   - Whatever the launcher returns, Run's error maps to exit 0, 1 or 2
//     (internal/cli), and a failure is said in one line.
//   - No process of a job Run started outlives it on this host: the guard
//     kills what is left when lmdbio run is gone.
//   - Every agent of a job takes part in the same collectives in the same
//     order (Agree after each step of its start).
package launch
