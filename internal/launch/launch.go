package launch

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Options are what lmdbio run was asked: its flags, checked, and the
// command to launch.
type Options struct {
	Ranks, Nodes, PerNode int    // -n, -N, --ranks-per-node; 0 when not given
	LauncherArgs          string // --launcher-args, as typed (shell quoting)
	DryRun                bool   // print the command instead of running it
	Agent                 bool   // --agent: start Command as learners, Learners per node
	Learners              int
	Command               []string // CMD ARGS...
}

// Run plans the launch for this machine (srun inside a Slurm allocation,
// else mpirun with the flags this host needs), refuses a job the host
// cannot hold, and runs it (runLaunch), or prints it with DryRun.
func Run(opt Options) error {
	launcherArgs, err := splitWords(opt.LauncherArgs)
	if err != nil {
		return cli.Usagef("--launcher-args: %v", err)
	}
	self, err := os.Executable()
	if err != nil && opt.Agent {
		return fmt.Errorf("lmdbio run --agent: where is lmdbio itself? %w", err)
	}
	l, err := planLaunch(launchRequest{
		ranks: opt.Ranks, nodes: opt.Nodes, perNode: opt.PerNode, launcherArgs: launcherArgs, command: opt.Command,
		learners: opt.Learners, self: self,
		getenv: os.Getenv, lookPath: exec.LookPath,
		flavor: topology.FlavorOf(mpi.LibraryVersion()),
		cores:  runtime.NumCPU(), root: os.Geteuid() == 0,
	})
	if err != nil {
		return cli.UsageError(err)
	}
	var tooMany error
	if l.here.ranks > 0 {
		tooMany = checkHostRoom(l.here, readHostLimits())
	}
	if opt.DryRun {
		// The command is shown, and the refusal said as a run would say it.
		fmt.Println(joinWords(append(append([]string{}, l.env...), l.argv...)))
		return tooMany
	}
	if tooMany != nil {
		return tooMany
	}
	if l.here.ranks > 0 {
		raiseOpenFiles()
	}
	if l.note != "" {
		fmt.Fprintln(os.Stderr, "lmdbio run: "+l.note)
	}
	return runLaunch(l)
}
