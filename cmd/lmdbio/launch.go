package main

import (
	"fmt"
	"os/exec"
	"strconv"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// launchRequest is what the user asked lmdbio run for, and what it found
// about the machine.
type launchRequest struct {
	ranks, nodes, perNode int // 0: let the launcher decide
	command               []string
	getenv                func(string) string
	lookPath              func(string) (string, error)
	flavor                topology.Flavor
	cores                 int
	root                  bool
}

// launch is the command line lmdbio run executes, and what it adds to the
// environment.
type launch struct {
	argv []string
	env  []string
	note string // said on stderr before starting, e.g. that nodes are emulated
}

// planLaunch picks srun inside a Slurm allocation and mpirun elsewhere, with
// the flags this MPI needs. It runs nothing.
func planLaunch(r launchRequest) (launch, error) {
	if r.getenv("SLURM_JOB_ID") != "" {
		return planSrun(r)
	}
	return planMpirun(r)
}

func planSrun(r launchRequest) (launch, error) {
	srun, err := r.lookPath("srun")
	if err != nil {
		return launch{}, fmt.Errorf("inside Slurm job %s but srun is not on PATH", r.getenv("SLURM_JOB_ID"))
	}
	argv := []string{srun, "--mpi=" + r.flavor.SrunPlugin(), "--kill-on-bad-exit=1"}
	if r.ranks > 0 {
		argv = append(argv, "--ntasks="+strconv.Itoa(r.ranks))
	}
	if r.nodes > 0 {
		argv = append(argv, "--nodes="+strconv.Itoa(r.nodes))
	}
	if r.perNode > 0 {
		argv = append(argv, "--ntasks-per-node="+strconv.Itoa(r.perNode))
	}
	return launch{argv: append(argv, r.command...)}, nil
}

// mpirunNames lists the launchers to look for, best first, per MPI family.
var mpirunNames = map[topology.Flavor][]string{
	topology.OpenMPI: {"mpirun.openmpi", "mpirun"},
	topology.MPICH:   {"mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich", "mpiexec"},
}

func planMpirun(r launchRequest) (launch, error) {
	names, ok := mpirunNames[r.flavor]
	if !ok {
		names = []string{"mpirun", "mpiexec"}
	}
	var mpirun string
	for _, name := range names {
		if p, err := r.lookPath(name); err == nil {
			mpirun = p
			break
		}
	}
	if mpirun == "" {
		return launch{}, fmt.Errorf("no MPI launcher found (looked for %v): install %s, e.g. with scripts/deps.sh", names, r.flavor)
	}
	var l launch
	l.argv = []string{mpirun}
	if r.ranks > 0 {
		l.argv = append(l.argv, "-n", strconv.Itoa(r.ranks))
	}
	perNode := r.perNode
	if r.nodes > 0 && perNode == 0 {
		if r.ranks == 0 {
			return launch{}, fmt.Errorf("-N %d without a Slurm allocation emulates nodes on this host and needs -n", r.nodes)
		}
		perNode = (r.ranks + r.nodes - 1) / r.nodes
	}
	if perNode > 0 {
		l.env = append(l.env, topology.RanksPerNodeEnv+"="+strconv.Itoa(perNode))
		l.note = fmt.Sprintf("no Slurm allocation: emulating nodes of %d ranks on this host (%s=%d)",
			perNode, topology.RanksPerNodeEnv, perNode)
	}
	if r.flavor != topology.MPICH {
		l.argv = append(l.argv, openMPIFlags(r, perNode > 0)...)
	}
	l.argv = append(l.argv, r.command...)
	return l, nil
}

// openMPIFlags are the flags Open MPI's mpirun needs on this machine.
func openMPIFlags(r launchRequest, virtualNodes bool) []string {
	var flags []string
	if r.ranks > r.cores {
		flags = append(flags, "--oversubscribe")
	}
	if r.root {
		flags = append(flags, "--allow-run-as-root")
	}
	if virtualNodes {
		flags = append(flags, "-x", topology.RanksPerNodeEnv)
	}
	return flags
}

// lookPath is exec.LookPath; a variable so tests can replace it.
var lookPath = exec.LookPath
