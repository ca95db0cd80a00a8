package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

func fakeEnv(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func fakeLookPath(found ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, f := range found {
			if f == name {
				return "/usr/bin/" + name, nil
			}
		}
		return "", errors.New("not found")
	}
}

func TestPlanLaunch(t *testing.T) {
	cases := []struct {
		name    string
		req     launchRequest
		want    string // argv joined by spaces
		wantEnv string
		wantErr string
	}{
		{
			name: "srun openmpi",
			req: launchRequest{ranks: 4, getenv: fakeEnv("SLURM_JOB_ID", "9"), lookPath: fakeLookPath("srun", "mpirun"),
				flavor: topology.OpenMPI, cores: 2},
			want: "/usr/bin/srun --mpi=pmix --kill-on-bad-exit=1 --ntasks=4 prog -x",
		},
		{
			name: "srun mpich nodes",
			req: launchRequest{ranks: 8, nodes: 2, perNode: 4, getenv: fakeEnv("SLURM_JOB_ID", "9"), lookPath: fakeLookPath("srun"),
				flavor: topology.MPICH},
			want: "/usr/bin/srun --mpi=pmi2 --kill-on-bad-exit=1 --ntasks=8 --nodes=2 --ntasks-per-node=4 prog -x",
		},
		{
			name: "mpirun oversubscribed as root",
			req: launchRequest{ranks: 4, getenv: fakeEnv(), lookPath: fakeLookPath("mpirun"),
				flavor: topology.OpenMPI, cores: 2, root: true},
			want: "/usr/bin/mpirun -n 4 --oversubscribe --allow-run-as-root prog -x",
		},
		{
			name: "mpirun fits the cores",
			req: launchRequest{ranks: 2, getenv: fakeEnv(), lookPath: fakeLookPath("mpirun"),
				flavor: topology.OpenMPI, cores: 2},
			want: "/usr/bin/mpirun -n 2 prog -x",
		},
		{
			name: "virtual nodes from -N",
			req: launchRequest{ranks: 8, nodes: 4, getenv: fakeEnv(), lookPath: fakeLookPath("mpirun"),
				flavor: topology.OpenMPI, cores: 8},
			want:    "/usr/bin/mpirun -n 8 -x LMDBIO_RANKS_PER_NODE prog -x",
			wantEnv: "LMDBIO_RANKS_PER_NODE=2",
		},
		{
			name: "mpich hydra",
			req: launchRequest{ranks: 3, getenv: fakeEnv(), lookPath: fakeLookPath("mpiexec.hydra", "mpirun"),
				flavor: topology.MPICH, cores: 2, root: true},
			want: "/usr/bin/mpiexec.hydra -n 3 prog -x",
		},
		{
			name:    "no launcher",
			req:     launchRequest{ranks: 2, getenv: fakeEnv(), lookPath: fakeLookPath(), flavor: topology.OpenMPI},
			wantErr: "no MPI launcher found",
		},
		{
			name:    "-N without -n",
			req:     launchRequest{nodes: 2, getenv: fakeEnv(), lookPath: fakeLookPath("mpirun"), flavor: topology.OpenMPI},
			wantErr: "needs -n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.command = []string{"prog", "-x"}
			l, err := planLaunch(c.req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(l.argv, " "); got != c.want {
				t.Errorf("argv = %q\nwant   %q", got, c.want)
			}
			if got := strings.Join(l.env, " "); got != c.wantEnv {
				t.Errorf("env = %q, want %q", got, c.wantEnv)
			}
		})
	}
}
