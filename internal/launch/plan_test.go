package launch

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/lmdbio/lmdbio/internal/startup"
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

func TestPlanLaunchPlacement(t *testing.T) {
	cases := []struct {
		name                  string
		ranks, nodes, perNode int
		slurm                 bool
		want                  string // argv and env, or the start of the error
	}{
		{name: "more nodes than ranks", ranks: 4, nodes: 5, want: "error: -N 5 with -n 4: 1 of the nodes would have no rank"},
		{name: "more nodes than ranks under srun", ranks: 4, nodes: 5, slurm: true, want: "error: -N 5 with -n 4"},
		{name: "too few slots", ranks: 8, nodes: 2, perNode: 2, want: "error: -n 8 does not fit on -N 2 nodes of --ranks-per-node 2"},
		{name: "too few slots under srun", ranks: 8, nodes: 2, perNode: 2, slurm: true, want: "error: -n 8 does not fit"},
		{name: "uneven virtual nodes", ranks: 4, nodes: 3, want: "error: -n 4 in virtual nodes of 2 consecutive ranks makes 2 nodes, not -N 3 (possible: 1, 2, 4)"},
		{name: "nodes and size disagree", ranks: 3, nodes: 3, perNode: 2, want: "error: -n 3 in virtual nodes of 2 consecutive ranks makes 2 nodes, not -N 3"},
		{name: "srun may spread unevenly", ranks: 3, nodes: 3, perNode: 2, slurm: true,
			want: "/usr/bin/srun --mpi=pmix --kill-on-bad-exit=1 --ntasks=3 --nodes=3 --ntasks-per-node=2 prog"},
		{name: "5 ranks in 3 nodes", ranks: 5, nodes: 3, want: "/usr/bin/mpirun -n 5 -x LMDBIO_RANKS_PER_NODE prog LMDBIO_RANKS_PER_NODE=2"},
		{name: "ranks from nodes and size", nodes: 3, perNode: 2, want: "/usr/bin/mpirun -n 6 -x LMDBIO_RANKS_PER_NODE prog LMDBIO_RANKS_PER_NODE=2"},
		{name: "nodes alone", nodes: 3, want: "error: -N 3 without a Slurm allocation emulates nodes on this host and needs -n or --ranks-per-node"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := fakeEnv()
			if c.slurm {
				env = fakeEnv("SLURM_JOB_ID", "9")
			}
			l, err := planLaunch(launchRequest{ranks: c.ranks, nodes: c.nodes, perNode: c.perNode, command: []string{"prog"},
				getenv: env, lookPath: fakeLookPath("srun", "mpirun"), flavor: topology.OpenMPI, cores: 8})
			got := strings.Join(append(l.argv, l.env...), " ")
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestPlanLaunchLauncherArgs(t *testing.T) {
	for _, c := range []struct {
		env  func(string) string
		want string
	}{
		{fakeEnv(), "/usr/bin/mpirun -n 2 --mca btl self,vader prog -x"},
		{fakeEnv("SLURM_JOB_ID", "9"), "/usr/bin/srun --mpi=pmix --kill-on-bad-exit=1 --ntasks=2 --mca btl self,vader prog -x"},
	} {
		l, err := planLaunch(launchRequest{ranks: 2, launcherArgs: []string{"--mca", "btl", "self,vader"}, command: []string{"prog", "-x"},
			getenv: c.env, lookPath: fakeLookPath("srun", "mpirun"), flavor: topology.OpenMPI, cores: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(l.argv, " "); got != c.want {
			t.Errorf("argv = %q, want %q", got, c.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "  --mca btl self,vader  ", want: []string{"--mca", "btl", "self,vader"}},
		{in: `-x 'A=1 2' -x "B=$x \"q\" \n"`, want: []string{"-x", "A=1 2", "-x", `B=$x "q" \n`}},
		{in: `a\ b c""d ''`, want: []string{"a b", "cd", ""}},
		{in: "--bind-to\tcore\n--map-by node", want: []string{"--bind-to", "core", "--map-by", "node"}},
		{in: "'open", err: "unterminated single quote"},
		{in: `"open`, err: "unterminated double quote"},
		{in: `end\`, err: "backslash at the end"},
	} {
		got, err := splitWords(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("splitWords(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		// What joinWords prints splits back into the same words.
		if back, err := splitWords(joinWords(got)); err != nil || strings.Join(back, "|") != strings.Join(got, "|") {
			t.Errorf("joinWords(%q) = %q does not split back: %q, %v", got, joinWords(got), back, err)
		}
	}
	if got := joinWords([]string{"mpirun", "-x", "A=1", "it's", "a b", ""}); got != `mpirun -x A=1 'it'\''s' 'a b' ''` {
		t.Errorf("joinWords = %s", got)
	}
}

func TestDeathScanner(t *testing.T) {
	cases := []struct {
		name, out string
		want      string // "" when no rank died by a signal
		timedOut  bool   // a rank said its start-up outlasted its limit
	}{
		{"open mpi", `--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
mpirun noticed that process rank 2 with PID 0 on node vm exited on signal 9 (Killed).
mpirun noticed that process rank 3 with PID 0 on node vm exited on signal 15 (Terminated).
`, "rank 2 on vm was killed by signal 9 (SIGKILL)", false},
		{"prrte", "prterun noticed that process rank 0 with PID 4242 on node n7 exited on signal 11 (Segmentation fault).\n",
			"rank 0 (pid 4242) on n7 was killed by signal 11 (SIGSEGV)", false},
		{"hydra 4.0", `
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 706 RUNNING AT vm
=   EXIT CODE: 9
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)
This typically refers to a problem with your application.
`, "a rank was killed by signal 9 (SIGKILL)", false},
		{"hydra 4.1", "=   RANK 3 PID 81 RUNNING AT n2\n=   KILLED BY SIGNAL: 6 (Aborted)\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)\n",
			"a rank was killed by signal 6 (SIGABRT)", false},
		{"hydra exit code only", "=   PID 706 RUNNING AT vm\n=   EXIT CODE: 3\n", "", false},
		{"srun", "srun: error: node3: task 5: Segmentation fault (core dumped)\nsrun: error: node3: task 6: Killed\n",
			"rank 5 on node3 was killed by signal 11 (SIGSEGV)", false},
		{"srun exit", "srun: error: node3: tasks 0-3: Exited with exit code 2\n", "", false},
		{"a rank's own output", "rank 1: process rank 1 with PID 5 on node x exited cleanly\n", "", false},
		{"a start-up past its limit", startup.Message + " in 3m0s: the ranks may not reach each other\n", "", true},
		{"the line quoted", "rank 3: " + startup.Message + "\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s deathScanner
			// Byte by byte: lines arrive in pieces through a pipe.
			for i := range len(c.out) {
				_, _ = s.Write([]byte{c.out[i]})
			}
			d, _, ok := s.death()
			got := ""
			if ok {
				got = d.String()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if _, timedOut := startupTimedOut(&s); timedOut != c.timedOut {
				t.Errorf("start-up timed out: %v, want %v", timedOut, c.timedOut)
			}
		})
	}
}

func TestJobOutcomeStatus(t *testing.T) {
	kill9 := &rankDeath{rank: 1, host: "n1", signal: syscall.SIGKILL}
	sigint := &rankDeath{rank: 0, signal: syscall.SIGINT}
	for _, c := range []struct {
		o    jobOutcome
		code int
		line string
	}{
		{jobOutcome{}, 0, ""},
		{jobOutcome{exitCode: 1}, 1, ""},
		{jobOutcome{exitCode: 2}, 2, ""},
		{jobOutcome{launcher: "mpirun", exitCode: 3}, 1, "the job failed: mpirun exited with status 3"},
		{jobOutcome{exitCode: 137, death: kill9}, 1, "rank 1 on n1 was killed by signal 9 (SIGKILL)"},
		{jobOutcome{launcher: "mpirun", exitCode: 143}, 1, "the job failed: mpirun exited with status 143 (a rank was killed by SIGTERM, or exited with 143)"},
		{jobOutcome{exitCode: 2, death: sigint}, 1, "rank 0 was killed by signal 2 (SIGINT)"}, // MPICH: status N for signal N
		{jobOutcome{launcher: "srun", signaled: syscall.SIGKILL}, 1, "srun was killed by signal 9 (SIGKILL)"},
		{jobOutcome{exitCode: 1, stoppedBy: syscall.SIGTERM, death: kill9}, 1, "stopped by SIGTERM"},
		{jobOutcome{stoppedBy: syscall.SIGUSR1}, 0, ""},
		// stopped by lmdbio run after a rank said its start-up timed out: the
		// rank's line is the one line
		{jobOutcome{launcher: "mpirun", signaled: syscall.SIGKILL, ranksSaid: true}, 1, ""},
		{jobOutcome{launcher: "mpirun", exitCode: 143, ranksSaid: true, death: kill9}, 1, "rank 1 on n1 was killed by signal 9 (SIGKILL)"},
	} {
		code, line := c.o.status()
		if code != c.code || line != c.line {
			t.Errorf("%+v: status %d %q, want %d %q", c.o, code, line, c.code, c.line)
		}
	}
}

func TestIsVaderFileOf(t *testing.T) {
	for name, want := range map[string]bool{
		"vader_segment.vm.0.6f70001.0":                 true,
		"vader_segment.node1.cluster.org.0.6f70001.12": true,
		"vader_segment.vm.6f70001.3":                   true, // Open MPI 4.0: no uid
		"vader_segment.vm.0.6f70002.0":                 false,
		"vader_segment.vm.0.6f70001.x":                 false,
		"lmdbio.6f70001.1.0":                           false,
		"vader_segment.6f70001.0":                      false,
	} {
		if got := isVaderFileOf(name, "6f70001"); got != want {
			t.Errorf("isVaderFileOf(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPlanLaunchAgent: one agent per node, which starts the learners: -n
// and -N both count nodes; srun places one task per node, mpirun emulates
// nodes of one rank.
func TestPlanLaunchAgent(t *testing.T) {
	const agentCmd = "/opt/lmdbio agent --learners-per-node 4 -- python3 train.py"
	for _, c := range []struct {
		name         string
		ranks, nodes int
		slurm        bool
		want, note   string
	}{
		{name: "mpirun, 2 nodes", nodes: 2,
			want: "/usr/bin/mpirun -n 2 -x LMDBIO_RANKS_PER_NODE " + agentCmd + " LMDBIO_RANKS_PER_NODE=1",
			note: "no Slurm allocation: emulating 2 nodes on this host, each with an agent and 4 learners"},
		{name: "mpirun, -n and -N alike", ranks: 3, nodes: 3,
			want: "/usr/bin/mpirun -n 3 --oversubscribe -x LMDBIO_RANKS_PER_NODE " + agentCmd + " LMDBIO_RANKS_PER_NODE=1",
			note: "no Slurm allocation: emulating 3 nodes"},
		{name: "mpirun, one node by default", want: "/usr/bin/mpirun -n 1 -x LMDBIO_RANKS_PER_NODE " + agentCmd + " LMDBIO_RANKS_PER_NODE=1"},
		{name: "srun, 2 nodes", ranks: 2, slurm: true,
			want: "/usr/bin/srun --mpi=pmix --kill-on-bad-exit=1 --ntasks=2 --nodes=2 --ntasks-per-node=1 " + agentCmd},
		{name: "srun, the allocation's nodes", slurm: true,
			want: "/usr/bin/srun --mpi=pmix --kill-on-bad-exit=1 --ntasks-per-node=1 " + agentCmd},
		{name: "-n and -N disagree", ranks: 2, nodes: 3, want: "error: --agent runs one agent per node: -n 2 and -N 3 both count nodes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := fakeEnv()
			if c.slurm {
				env = fakeEnv("SLURM_JOB_ID", "9")
			}
			l, err := planLaunch(launchRequest{ranks: c.ranks, nodes: c.nodes, learners: 4, self: "/opt/lmdbio",
				command: []string{"python3", "train.py"}, getenv: env, lookPath: fakeLookPath("srun", "mpirun"),
				flavor: topology.OpenMPI, cores: 2})
			got := strings.Join(append(l.argv, l.env...), " ")
			if err != nil {
				got = "error: " + err.Error()
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if !strings.HasPrefix(l.note, c.note) || c.note == "" && l.note != "" {
				t.Errorf("note %q, want %q", l.note, c.note)
			}
		})
	}
}
