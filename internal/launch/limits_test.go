package launch

import (
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// TestHostRoom: the most ranks a host can start is set by its tightest
// limit, which the refusal names with what was asked and what fits.
func TestHostRoom(t *testing.T) {
	// Roomy everywhere but in the limit a case sets.
	roomy := hostLimits{openFiles: 1 << 20, pidMax: 4 << 20, threadsMax: 4 << 20, tasks: 500, memAvailable: 1 << 40}
	cases := []struct {
		name     string
		limits   func(h *hostLimits)
		learners int
		most     int
		why      string
	}{
		{name: "open files 1024", limits: func(h *hostLimits) { h.openFiles = 1024 }, most: 274,
			why: "mpirun may keep 1024 files open (the hard limit, ulimit -Hn) and keeps about 3.5 for each rank"},
		{name: "open files 20000", limits: func(h *hostLimits) { h.openFiles = 20000 }, most: 5696},
		{name: "fewer open files than mpirun's own", limits: func(h *hostLimits) { h.openFiles = 10 }, most: 0},
		{name: "pid_max less the tasks running", limits: func(h *hostLimits) { h.pidMax, h.tasks = 32768, 768 }, most: 4571,
			why: "the kernel runs at most 32768 processes and threads (pid_max), 768 run now, and a rank runs at least 7"},
		{name: "threads-max", limits: func(h *hostLimits) { h.threadsMax, h.tasks = 7000, 0 }, most: 1000,
			why: "the kernel runs at most 7000 processes and threads (threads-max), 0 run now"},
		{name: "more tasks than pid_max", limits: func(h *hostLimits) { h.pidMax, h.tasks = 1000, 2000 }, most: 0},
		{name: "ulimit -u", limits: func(h *hostLimits) { h.userTasks = 4096 }, most: 585,
			why: "your processes and threads are limited to 4096 (ulimit -u) and a rank runs at least 7"},
		{name: "memory", limits: func(h *hostLimits) { h.memAvailable = 24 << 30 }, most: 3072,
			why: "24.0 GiB of memory is available and a rank takes at least 8.0 MiB"},
		{name: "memory for agents and learners", limits: func(h *hostLimits) { h.memAvailable = 24 << 30 }, learners: 3, most: 768,
			why: "24.0 GiB of memory is available and an agent and its 3 learners take at least 32.0 MiB"},
		{name: "tasks for agents and learners", limits: func(h *hostLimits) { h.userTasks = 4096 }, learners: 3, most: 146,
			why: "and an agent and its 3 learners run at least 28"},
		{name: "learners do not hold mpirun's files", limits: func(h *hostLimits) { h.openFiles = 1024 }, learners: 7, most: 274},
		{name: "the tightest wins", limits: func(h *hostLimits) { h.openFiles, h.memAvailable, h.userTasks = 20000, 1<<30, 4096 }, most: 128,
			why: "1.0 GiB of memory"},
		{name: "nothing known", limits: func(h *hostLimits) { *h = hostLimits{} }, most: int(^uint(0) >> 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := roomy
			c.limits(&h)
			most, why := h.room(c.learners)
			if most != c.most || !strings.Contains(why, c.why) {
				t.Errorf("room = %d, %q\nwant   %d, %q", most, why, c.most, c.why)
			}
		})
	}
}

// TestCheckHostRoom: one line that says what was asked, what fits, why, and
// what to do; nothing to say when the job fits, or is not this host's.
func TestCheckHostRoom(t *testing.T) {
	h := hostLimits{openFiles: 20000, pidMax: 32768, tasks: 100, memAvailable: 24 << 30}
	for _, c := range []struct {
		job  localJob
		want string // "" for no refusal
	}{
		{localJob{ranks: 3072}, ""},
		{localJob{}, ""}, // not started here
		{localJob{ranks: 100000}, "lmdbio run: this host cannot start 100000 ranks, only 3072: 24.0 GiB of memory is available and a rank takes at least 8.0 MiB; " +
			"use fewer, or spread them over nodes inside a Slurm allocation (-N, --ranks-per-node)"},
		{localJob{ranks: 3073}, "lmdbio run: this host cannot start 3073 ranks, only 3072: "},
		{localJob{ranks: 1000, learners: 8}, "lmdbio run: this host cannot start 1000 agents with 8 learners each, only 341: " +
			"24.0 GiB of memory is available and an agent and its 8 learners take at least 72.0 MiB; " +
			"use fewer nodes or learners, or run inside a Slurm allocation, where -N spreads them over nodes"},
	} {
		err := checkHostRoom(c.job, h)
		got := ""
		if err != nil {
			got = cli.ErrorLine("lmdbio run", err)
			if cli.ExitCode(err) != cli.ExitUsage {
				t.Errorf("%+v: exit status %d, want %d", c.job, cli.ExitCode(err), cli.ExitUsage)
			}
		}
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%+v:\ngot  %q\nwant %q", c.job, got, c.want)
		}
	}
}

// TestHostsGiven: hosts named to the launcher, on its command line or in
// the environment, take the ranks' placement out of lmdbio run's hands.
func TestHostsGiven(t *testing.T) {
	for _, c := range []struct {
		args string
		env  []string
		want bool
	}{
		{"", nil, false},
		{"--mca btl self,vader --bind-to core", nil, false},
		{"--host a,b", nil, true},
		{"-H a:4", nil, true},
		{"--hostfile=hosts.txt", nil, true},
		{"-machinefile m", nil, true},
		{"--mca orte_default_hostfile hosts.txt", nil, true},
		{"--mca orte_keep_fqdn_hostnames 1", nil, false},
		{"-f hosts", nil, true}, // Hydra
		{"-hosts a,b", nil, true},
		{"", []string{"PBS_NODEFILE", "/var/spool/nodes"}, true},
		{"", []string{"OMPI_MCA_orte_default_hostfile", "hosts.txt"}, true},
		{"", []string{"SLURM_NTASKS", "4"}, false},
	} {
		args, err := splitWords(c.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := hostsGiven(args, fakeEnv(c.env...)); got != c.want {
			t.Errorf("hostsGiven(%q, %v) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}

// TestPlanLaunchHere: the plan says what starts on this host: mpirun's
// ranks (learners under --agent), not srun's, nor those of a launcher told
// of hosts or left to pick the count.
func TestPlanLaunchHere(t *testing.T) {
	for _, c := range []struct {
		name string
		req  launchRequest
		want localJob
	}{
		{"mpirun", launchRequest{ranks: 100000}, localJob{ranks: 100000}},
		{"virtual nodes", launchRequest{nodes: 3, perNode: 2}, localJob{ranks: 6}},
		{"agents", launchRequest{nodes: 2, learners: 4, self: "/opt/lmdbio"}, localJob{ranks: 2, learners: 4}},
		{"the launcher's count", launchRequest{}, localJob{}},
		{"hosts given", launchRequest{ranks: 100000, launcherArgs: []string{"--hostfile", "h"}}, localJob{}},
		{"srun", launchRequest{ranks: 100000, getenv: fakeEnv("SLURM_JOB_ID", "9")}, localJob{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.req
			if r.getenv == nil {
				r.getenv = fakeEnv()
			}
			r.command, r.lookPath, r.flavor, r.cores = []string{"prog"}, fakeLookPath("srun", "mpirun"), topology.OpenMPI, 2
			l, err := planLaunch(r)
			if err != nil {
				t.Fatal(err)
			}
			if l.here != c.want {
				t.Errorf("here = %+v, want %+v", l.here, c.want)
			}
		})
	}
}
