package launch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// launchRequest is what the user asked lmdbio run for, and what it found
// about the machine.
type launchRequest struct {
	ranks, nodes, perNode int      // 0: let the launcher decide
	launcherArgs          []string // the user's own launcher options, before the command
	command               []string
	learners              int    // --agent: learners per node (0 without)
	self                  string // this program, which the agent runs as
	getenv                func(string) string
	lookPath              func(string) (string, error)
	flavor                topology.Flavor
	cores                 int
	root                  bool
}

// plan is the command line lmdbio run executes, and what it adds to the
// environment.
type plan struct {
	argv []string
	env  []string
	note string // said on stderr before starting, e.g. that nodes are emulated
	here localJob
}

// localJob is what a launch starts on this host, where lmdbio run can tell
// (mpirun told of no other hosts): ranks, each with learners processes of its
// own under --agent. No ranks: not known here, and the launcher's business.
type localJob struct{ ranks, learners int }

// planLaunch picks srun inside a Slurm allocation and mpirun elsewhere, with
// the flags this MPI needs. It runs nothing.
func planLaunch(r launchRequest) (plan, error) {
	if r.learners > 0 {
		return planAgents(r)
	}
	if err := checkPlacement(r.ranks, r.nodes, r.perNode); err != nil {
		return plan{}, err
	}
	if r.getenv("SLURM_JOB_ID") != "" {
		return planSrun(r)
	}
	return planMpirun(r)
}

// planAgents launches one agent per node, which starts the node's learners
// (lmdbio run --agent): -n and -N both count nodes. Without an allocation
// the nodes are emulated, each of one rank; without -n or -N there is one.
func planAgents(r launchRequest) (plan, error) {
	nodes := max(r.ranks, r.nodes)
	if r.ranks > 0 && r.nodes > 0 && r.ranks != r.nodes {
		return plan{}, fmt.Errorf("--agent runs one agent per node: -n %d and -N %d both count nodes and must agree", r.ranks, r.nodes)
	}
	r.command = append([]string{r.self, AgentCommand, "--learners-per-node", strconv.Itoa(r.learners), "--"}, r.command...)
	r.ranks, r.nodes, r.perNode = nodes, nodes, 1
	if r.getenv("SLURM_JOB_ID") != "" {
		return planSrun(r)
	}
	r.ranks, r.nodes = max(nodes, 1), 0
	l, err := planMpirun(r)
	l.note = ""
	if l.here.ranks > 0 {
		l.here.learners = r.learners
	}
	// The nodes are emulated only where the ranks run here: with hosts
	// given to the launcher, each agent runs on one of them.
	if r.ranks > 1 && !hostsGiven(r.launcherArgs, r.getenv) {
		l.note = fmt.Sprintf("no Slurm allocation: emulating %d nodes on this host, each with an agent and %s (%s=1)",
			r.ranks, plural(r.learners, "learner"), topology.RanksPerNodeEnv)
	}
	return l, err
}

// checkPlacement refuses rank counts no launcher can place as asked, where
// srun or mpirun would quietly place them differently (srun -n 4 -N 5 runs on
// 4 nodes).
func checkPlacement(ranks, nodes, perNode int) error {
	if ranks > 0 && nodes > ranks {
		return fmt.Errorf("-N %d with -n %d: %d of the nodes would have no rank", nodes, ranks, nodes-ranks)
	}
	if ranks > 0 && nodes > 0 && perNode > 0 && nodes*perNode < ranks {
		return fmt.Errorf("-n %d does not fit on -N %d nodes of --ranks-per-node %d (%d ranks at most)",
			ranks, nodes, perNode, nodes*perNode)
	}
	return nil
}

func planSrun(r launchRequest) (plan, error) {
	srun, err := r.lookPath("srun")
	if err != nil {
		return plan{}, fmt.Errorf("inside Slurm job %s but srun is not on PATH", r.getenv("SLURM_JOB_ID"))
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
	argv = append(argv, r.launcherArgs...)
	return plan{argv: append(argv, r.command...)}, nil
}

// mpirunNames lists the launchers to look for, best first, per MPI family.
var mpirunNames = map[topology.Flavor][]string{
	topology.OpenMPI: {"mpirun.openmpi", "mpirun"},
	topology.MPICH:   {"mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich", "mpiexec"},
}

// MpirunNames lists the launchers lmdbio run looks for under flavor's MPI,
// best first (for lmdbio doctor).
func MpirunNames(flavor topology.Flavor) []string {
	return append([]string(nil), mpirunNames[flavor]...)
}

func planMpirun(r launchRequest) (plan, error) {
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
		return plan{}, fmt.Errorf("no MPI launcher found (looked for %v): install %s, e.g. with scripts/deps.sh", names, r.flavor)
	}
	ranks, perNode, err := virtualNodes(r.ranks, r.nodes, r.perNode)
	if err != nil {
		return plan{}, err
	}
	var l plan
	l.argv = []string{mpirun}
	if ranks > 0 {
		l.argv = append(l.argv, "-n", strconv.Itoa(ranks))
		if !hostsGiven(r.launcherArgs, r.getenv) {
			l.here.ranks = ranks
		}
	}
	if perNode > 0 {
		l.env = append(l.env, topology.RanksPerNodeEnv+"="+strconv.Itoa(perNode))
		l.note = fmt.Sprintf("no Slurm allocation: emulating nodes of %d ranks on this host (%s=%d)",
			perNode, topology.RanksPerNodeEnv, perNode)
		if hostsGiven(r.launcherArgs, r.getenv) { // hosts given: the launcher places the ranks, not on this host alone
			l.note = fmt.Sprintf("no Slurm allocation: nodes of %d consecutive ranks (%s=%d)",
				perNode, topology.RanksPerNodeEnv, perNode)
		}
	}
	if r.flavor != topology.MPICH {
		l.argv = append(l.argv, openMPIFlags(r, ranks, perNode > 0)...)
	}
	l.argv = append(l.argv, r.launcherArgs...)
	l.argv = append(l.argv, r.command...)
	return l, nil
}

// virtualNodes works out the rank count and the size of the virtual nodes
// that emulate -N nodes on one host, where a node is K consecutive ranks
// (K = perNode, 0 for none). Not every -N can be made of equal runs of
// consecutive ranks: -n 4 -N 3 cannot, and is refused rather than run on 2.
func virtualNodes(ranks, nodes, perNode int) (int, int, error) {
	if nodes == 0 {
		return ranks, perNode, nil
	}
	if ranks == 0 {
		if perNode == 0 {
			return 0, 0, fmt.Errorf("-N %d without a Slurm allocation emulates nodes on this host and needs -n or --ranks-per-node", nodes)
		}
		return nodes * perNode, perNode, nil
	}
	if perNode == 0 {
		perNode = (ranks + nodes - 1) / nodes
	}
	if got := (ranks + perNode - 1) / perNode; got != nodes {
		return 0, 0, fmt.Errorf("-n %d in virtual nodes of %d consecutive ranks makes %d nodes, not -N %d (possible: %s)",
			ranks, perNode, got, nodes, virtualNodeCounts(ranks))
	}
	return ranks, perNode, nil
}

// plural says n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// virtualNodeCounts lists the node counts that ranks can be split into.
func virtualNodeCounts(ranks int) string {
	var counts []string
	last := 0
	for k := ranks; k >= 1; k-- {
		if n := (ranks + k - 1) / k; n != last {
			counts = append(counts, strconv.Itoa(n))
			last = n
		}
		if len(counts) == 12 {
			counts = append(counts, "...")
			break
		}
	}
	return strings.Join(counts, ", ")
}

// openMPIFlags are the flags Open MPI's mpirun needs on this machine.
func openMPIFlags(r launchRequest, ranks int, virtualNodes bool) []string {
	var flags []string
	if ranks > r.cores {
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
