package topology

import (
	"errors"
	"strings"
	"testing"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

var srunStep = []string{"SLURM_JOB_ID", "7", "SLURM_STEP_ID", "0", "SLURM_PROCID", "1", "SLURM_STEP_NUM_TASKS", "4"}

func TestCheckBeforeInit(t *testing.T) {
	cases := []struct {
		name   string
		env    []string
		flavor Flavor
		want   string // substring of the error; "" for no error
	}{
		{"no slurm", nil, OpenMPI, ""},
		{"mpirun inside allocation", append(append([]string{}, srunStep...), "OMPI_COMM_WORLD_SIZE", "4"), OpenMPI, ""},
		{"srun pmix", append(append([]string{}, srunStep...), "PMIX_RANK", "1"), OpenMPI, ""},
		{"openmpi plain srun", srunStep, OpenMPI, "--mpi=pmix"},
		{"openmpi srun pmi2", append(append([]string{}, srunStep...), "PMI_RANK", "1", "PMI_FD", "5"), OpenMPI, "--mpi=pmix"},
		{"mpich plain srun", srunStep, MPICH, "--mpi=pmi2"},
		{"mpich srun pmi2", append(append([]string{}, srunStep...), "PMI_FD", "5"), MPICH, ""},
		{"mpich single task", []string{"SLURM_STEP_ID", "0", "SLURM_PROCID", "0", "SLURM_STEP_NUM_TASKS", "1"}, MPICH, ""},
		{"no mpi build", srunStep, NoMPI, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckBeforeInit(envOf(c.env...), c.flavor)
			checkErr(t, err, c.want)
		})
	}
}

func TestCheckAfterInit(t *testing.T) {
	cases := []struct {
		name  string
		env   []string
		world int
		want  string // substring of the error; "" for no error
	}{
		{"srun without PMI", srunStep, 1, "--mpi=pmi2"},
		{"srun with PMI", srunStep, 4, ""},
		{"alone", nil, 1, ""},
		{"torchrun", []string{"RANK", "1", "WORLD_SIZE", "4"}, 1, "lmdbio run -n 4 -- "},
		{"torchrun rank 0", []string{"RANK", "0", "WORLD_SIZE", "4", "LOCAL_RANK", "0"}, 1, "lmdbio run -n 4 -- "},
		{"rank without size", []string{"RANK", "3"}, 1, "lmdbio run -n N -- "},
		{"torchrun advice", []string{"RANK", "0", "WORLD_SIZE", "4", "LOCAL_WORLD_SIZE", "4"}, 1,
			"lmdbio run --agent --learners-per-node 4 -- COMMAND"},
		{"torchrun advice, 2 nodes", []string{"RANK", "3", "WORLD_SIZE", "4", "LOCAL_WORLD_SIZE", "2"}, 1,
			"lmdbio run --agent -N 2 --learners-per-node 2 -- COMMAND"},
		{"torchrun advice, unknown per node", []string{"RANK", "3", "WORLD_SIZE", "4"}, 1,
			"lmdbio run --agent --learners-per-node K -- COMMAND"},
		{"srun advice", append([]string{"SLURM_NTASKS_PER_NODE", "2"}, srunStep...), 1,
			"lmdbio run --agent --learners-per-node 2 -- COMMAND"},
		{"torchrun of one", []string{"RANK", "0", "WORLD_SIZE", "1"}, 1, ""},
		{"torchrun under mpirun", []string{"RANK", "1", "WORLD_SIZE", "4"}, 4, ""},
		{"agent learner", []string{"RANK", "1", "WORLD_SIZE", "4", AgentSocketEnv, "/tmp/x.sock"}, 1, ""},
		{"agent learner under srun", append([]string{AgentSocketEnv, "/tmp/x.sock"}, srunStep...), 1, ""},
		{"not numbers", []string{"RANK", "one", "WORLD_SIZE", "four"}, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, CheckAfterInit(envOf(c.env...), MPICH, c.world), c.want)
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrLaunch) {
		t.Fatalf("error %v, want ErrLaunch mentioning %q", err, want)
	}
}

func TestFlavorOf(t *testing.T) {
	for v, want := range map[string]Flavor{
		"Open MPI v4.1.4, package: Debian OpenMPI": OpenMPI,
		"MPICH Version:\t4.0.2":                    MPICH,
		"":                                         NoMPI,
		"Intel(R) MPI Library 2021":                UnknownMPI,
	} {
		if got := FlavorOf(v); got != want {
			t.Errorf("FlavorOf(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestRanksPerNode(t *testing.T) {
	for v, want := range map[string]int{"": 0, "1": 1, "4": 4, "0": -1, "x": -1, "-2": -1} {
		got, err := RanksPerNode(envOf(RanksPerNodeEnv, v))
		if want < 0 {
			if err == nil {
				t.Errorf("%q: want error", v)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: got %d, %v; want %d", v, got, err, want)
		}
	}
}
