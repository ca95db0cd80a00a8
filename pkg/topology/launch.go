package topology

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// ErrLaunch marks a job that was started in a way its MPI library cannot
// work with. Such errors are the user's to fix, so the CLI exits with 2.
var ErrLaunch = failure.New(failure.Launch, "bad MPI launch")

// Flavor is the family of the MPI library lmdbio was built against.
type Flavor int

// The MPI families lmdbio knows how to launch.
const (
	UnknownMPI Flavor = iota
	OpenMPI
	MPICH
	NoMPI
)

// FlavorOf reads the family from MPI_Get_library_version's text.
func FlavorOf(version string) Flavor {
	switch v := strings.ToLower(version); {
	case strings.Contains(v, "open mpi"):
		return OpenMPI
	case strings.Contains(v, "mpich"):
		return MPICH
	case strings.Contains(v, "no mpi"), v == "":
		return NoMPI
	}
	return UnknownMPI
}

func (f Flavor) String() string {
	return [...]string{"unknown MPI", "Open MPI", "MPICH", "no MPI"}[f]
}

// SrunPlugin is the srun --mpi value that starts this MPI correctly.
func (f Flavor) SrunPlugin() string {
	if f == MPICH {
		return "pmi2"
	}
	return "pmix"
}

// launchEnv lists, per MPI family, variables that only a launcher this MPI
// can work with sets in a rank's environment: its own mpirun, or srun with
// the right PMI plugin. Open MPI 4 speaks PMIx only, so srun --mpi=pmi2 (which
// sets PMI_*) does not count for it.
var launchEnv = map[Flavor][]string{
	OpenMPI:    {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK"},
	MPICH:      {"PMI_RANK", "PMI_FD", "PMI_PORT", "PMI_SIZE", "PMIX_RANK"},
	UnknownMPI: {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_PORT", "PMI_SIZE"},
}

// srunTasks returns how many tasks srun started in this step, 0 when this
// process is not a task of a Slurm job step.
func srunTasks(getenv func(string) string) int {
	if getenv("SLURM_STEP_ID") == "" || getenv("SLURM_PROCID") == "" {
		return 0
	}
	for _, name := range []string{"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"} {
		if n, err := strconv.Atoi(getenv(name)); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

func launchedByMPI(getenv func(string) string, f Flavor) bool {
	for _, name := range launchEnv[f] {
		if getenv(name) != "" {
			return true
		}
	}
	return false
}

// CheckBeforeInit refuses launches that would make MPI_Init fail cryptically
// or split the job into independent single-rank jobs. Call it before MPI_Init.
func CheckBeforeInit(getenv func(string) string, f Flavor) error {
	tasks := srunTasks(getenv)
	if tasks == 0 || f == NoMPI || launchedByMPI(getenv, f) {
		return nil
	}
	switch {
	case f == OpenMPI:
		return fmt.Errorf("%w: started by srun without PMIx, which Open MPI needs (plain srun and --mpi=pmi2 do not work): use srun --mpi=%s (or lmdbio run, which picks it)",
			ErrLaunch, f.SrunPlugin())
	case tasks > 1:
		return fmt.Errorf("%w: srun started %d tasks without a PMI plugin, so %s would run %d independent single-rank jobs: use srun --mpi=%s (or lmdbio run)",
			ErrLaunch, tasks, f, tasks, f.SrunPlugin())
	}
	return nil
}

// AgentSocketEnv names the variable that lmdbio run --agent sets for the
// learners it starts: they attach to their node's reader without MPI, so a
// world of one is what they should see.
const AgentSocketEnv = "LMDBIO_AGENT_SOCKET"

// CheckAfterInit catches the launch mistakes that only show once MPI runs,
// where every process sees a world of one although the launcher started
// several, so each would read the whole dataset: srun without the right
// --mpi, or a launcher without MPI such as torchrun (RANK, WORLD_SIZE).
func CheckAfterInit(getenv func(string) string, f Flavor, worldSize int) error {
	if worldSize != 1 || getenv(AgentSocketEnv) != "" {
		return nil
	}
	if tasks := srunTasks(getenv); tasks > 1 {
		return fmt.Errorf("%w: srun started %d tasks but MPI sees a world of 1 rank (independent single-rank jobs): use srun --mpi=%s (or lmdbio run); for learners that are not MPI programs (torch.distributed), %s",
			ErrLaunch, tasks, f.SrunPlugin(), agentAdvice(getenv("SLURM_NTASKS_PER_NODE"), 0))
	}
	rank, _ := strconv.Atoi(getenv("RANK"))
	size, _ := strconv.Atoi(getenv("WORLD_SIZE"))
	if rank > 0 || size > 1 {
		n := "N"
		if size > 1 {
			n = strconv.Itoa(size)
		}
		return fmt.Errorf("%w: RANK=%s WORLD_SIZE=%s say a launcher without MPI (torchrun?) started this as one of several processes, but MPI sees a world of 1 rank, so each would read the whole dataset: %s (an MPI program: lmdbio run -n %s -- COMMAND, or srun --mpi=%s)",
			ErrLaunch, getenv("RANK"), getenv("WORLD_SIZE"), agentAdvice(getenv("LOCAL_WORLD_SIZE"), size), n, f.SrunPlugin())
	}
	return nil
}

// agentAdvice says how to start learners that are not MPI programs: lmdbio
// run --agent starts them as torchrun does, so torch.distributed works
// unchanged, and one agent per node reads for them. perNode is the
// launcher's count of processes per node (torchrun's LOCAL_WORLD_SIZE),
// world its count of processes, 0 or "" when unknown.
func agentAdvice(perNode string, world int) string {
	k, _ := strconv.Atoi(perNode)
	nodes := ""
	if k > 0 && world > k && world%k == 0 {
		nodes = fmt.Sprintf(" -N %d", world/k)
	}
	if k <= 0 {
		perNode = "K"
	}
	return fmt.Sprintf("launch the job with lmdbio run --agent%s --learners-per-node %s -- COMMAND, which starts the learners as torchrun does (RANK, WORLD_SIZE, MASTER_ADDR) with one agent per node that reads for them",
		nodes, perNode)
}
