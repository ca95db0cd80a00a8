package launch

import (
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// TestNoteEmulatesOnlyHere: lmdbio run says it emulates nodes on this host
// only when it does; with hosts given to the launcher (a hostfile, --host,
// a variable naming a host file), the ranks start where the launcher puts
// them.
func TestNoteEmulatesOnlyHere(t *testing.T) {
	for _, c := range []struct {
		name         string
		agent        bool
		launcherArgs []string
		env          []string
		emulates     bool
	}{
		{name: "agent, this host", agent: true, emulates: true},
		{name: "agent, --host", agent: true, launcherArgs: []string{"--host", "a,b"}},
		{name: "agent, a host file variable", agent: true, env: []string{"OMPI_MCA_orte_default_hostfile", "/tmp/hosts"}},
		{name: "mpirun, this host", emulates: true},
		{name: "mpirun, --hostfile", launcherArgs: []string{"--hostfile", "/tmp/hosts"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := launchRequest{ranks: 4, nodes: 2, self: "/opt/lmdbio",
				command: []string{"python3", "train.py"}, getenv: fakeEnv(c.env...), launcherArgs: c.launcherArgs,
				lookPath: fakeLookPath("mpirun"), flavor: topology.OpenMPI, cores: 2}
			if c.agent {
				r.ranks, r.learners = 2, 2
			}
			l, err := planLaunch(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(l.note, "emulating"); got != c.emulates {
				t.Errorf("note %q: emulating %v, want %v", l.note, got, c.emulates)
			}
		})
	}
}
