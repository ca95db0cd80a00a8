package launch

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/meminfo"
	"golang.org/x/sys/unix"
)

// What every rank started on this host takes of it, at least, and the open
// files mpirun keeps for itself and per rank, as measured of idle ranks
// (docs/decisions/0015-launch-host-limits.md).
const (
	rankMemory         = 8 << 20
	rankThreads        = 7
	mpirunFiles        = 64 // its own
	mpirunFilesPerRank = 3.5
)

// hostLimits are the limits of this host that cap the ranks one launch may
// start on it; 0 where a limit is unknown or does not apply.
type hostLimits struct {
	openFiles    uint64 // the launcher's limit on open files (RLIMIT_NOFILE)
	userTasks    uint64 // the user's processes and threads (RLIMIT_NPROC)
	pidMax       uint64 // the kernel's, for everyone: each thread takes a pid
	threadsMax   uint64
	tasks        uint64 // processes and threads that run now
	memAvailable int64
}

// room returns the most ranks, each with learners processes of its own
// (--agent), the host can start, and which limit says so.
func (h hostLimits) room(learners int) (int, string) {
	per := uint64(1 + learners)
	who, s := "a rank", "s"
	if learners > 0 {
		who, s = "an agent and its "+plural(learners, "learner"), ""
	}
	most, why := uint64(math.MaxInt), ""
	take := func(n uint64, reason string) {
		if n < most {
			most, why = n, reason
		}
	}
	if h.openFiles > 0 {
		take(uint64(float64(h.openFiles-min(h.openFiles, mpirunFiles))/mpirunFilesPerRank), fmt.Sprintf(
			"mpirun may keep %d files open (the hard limit, ulimit -Hn) and keeps about %.1f for each rank",
			h.openFiles, mpirunFilesPerRank))
	}
	threads := per * rankThreads
	for _, k := range []struct {
		limit uint64
		name  string
	}{{h.pidMax, "pid_max"}, {h.threadsMax, "threads-max"}} {
		if k.limit > 0 {
			take((k.limit-min(k.limit, h.tasks))/threads, fmt.Sprintf(
				"the kernel runs at most %d processes and threads (%s), %d run now, and %s run%s at least %d",
				k.limit, k.name, h.tasks, who, s, threads))
		}
	}
	if h.userTasks > 0 {
		// What the user runs now is not taken off, as finding it costs a
		// look at every process: this bound is the loose one.
		take(h.userTasks/threads, fmt.Sprintf(
			"your processes and threads are limited to %d (ulimit -u) and %s run%s at least %d",
			h.userTasks, who, s, threads))
	}
	if h.memAvailable > 0 {
		need := int64(per) * rankMemory
		take(uint64(h.memAvailable/need), fmt.Sprintf("%s of memory is available and %s take%s at least %s",
			cli.HumanBytes(h.memAvailable), who, s, cli.HumanBytes(need)))
	}
	return int(min(most, math.MaxInt)), why
}

// checkHostRoom refuses a job this host cannot hold, before anything
// starts: past its limits mpirun fails half-way through starting the ranks
// and then hangs, or the host runs out of pids or memory under the job.
func checkHostRoom(j localJob, h hostLimits) error {
	if j.ranks == 0 {
		return nil
	}
	most, why := h.room(j.learners)
	if j.ranks <= most {
		return nil
	}
	if j.learners > 0 {
		return cli.Usagef("this host cannot start %s with %s each, only %d: %s; use fewer nodes or learners, or run inside a Slurm allocation, where -N spreads them over nodes",
			plural(j.ranks, "agent"), plural(j.learners, "learner"), most, why)
	}
	return cli.Usagef("this host cannot start %s, only %d: %s; use fewer, or spread them over nodes inside a Slurm allocation (-N, --ranks-per-node)",
		plural(j.ranks, "rank"), most, why)
}

// readHostLimits reads this host's limits. The open-file limit is the hard
// one: lmdbio run raises mpirun's to it (raiseOpenFiles).
func readHostLimits() hostLimits {
	var h hostLimits
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Max != unix.RLIM_INFINITY {
		h.openFiles = lim.Max
	}
	// The kernel does not hold root to RLIMIT_NPROC.
	if unix.Getrlimit(unix.RLIMIT_NPROC, &lim) == nil && lim.Cur != unix.RLIM_INFINITY && os.Getuid() != 0 {
		h.userTasks = lim.Cur
	}
	h.pidMax = readUint("/proc/sys/kernel/pid_max")
	h.threadsMax = readUint("/proc/sys/kernel/threads-max")
	// The fourth field of loadavg is "running/existing" scheduling entities.
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 3 {
			_, all, _ := strings.Cut(f[3], "/")
			h.tasks, _ = strconv.ParseUint(all, 10, 64)
		}
	}
	if m, err := meminfo.Read(); err == nil {
		h.memAvailable = m["MemAvailable"]
	}
	return h
}

// readUint reads a file holding one number; 0 if it cannot.
func readUint(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// raiseOpenFiles lifts the soft limit on open files to the hard one for the
// launcher lmdbio run starts: mpirun keeps a few for every rank, and the
// soft limit many systems set (1024) stops it short of 300 ranks. Go raised
// the limit for lmdbio run itself at start, but hands children the original
// unless the program sets it (syscall.Setrlimit tells it so).
func raiseOpenFiles() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}

// hostOptions are launcher options that name the hosts of a job (Open
// MPI's, and MPICH's Hydra's): with them the ranks may start elsewhere.
var hostOptions = map[string]bool{
	"-H": true, "-host": true, "--host": true, "-hosts": true,
	"-hostfile": true, "--hostfile": true, "-machinefile": true, "--machinefile": true,
	"-default-hostfile": true, "--default-hostfile": true, "-rf": true, "--rankfile": true, "-f": true,
}

// mcaOptions set a parameter of Open MPI (or PRRTE) on mpirun's command line.
var mcaOptions = map[string]bool{"-mca": true, "--mca": true, "-gmca": true, "--gmca": true, "--prtemca": true}

// hostVars name hosts for the launcher from the environment: a default host
// file, or the allocation of a resource manager other than Slurm, which
// mpirun reads.
var hostVars = []string{
	"OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_default_dash_host", "PRTE_MCA_prte_default_hostfile",
	"HYDRA_HOST_FILE", "PBS_NODEFILE", "LSB_DJOB_HOSTFILE", "LSB_HOSTS", "PE_HOSTFILE",
}

// hostsGiven reports whether the launcher is told of hosts, so that where
// the ranks start is its business, and its checks apply.
func hostsGiven(launcherArgs []string, getenv func(string) string) bool {
	for i, a := range launcherArgs {
		name, _, _ := strings.Cut(a, "=")
		if hostOptions[name] {
			return true
		}
		// --mca orte_default_hostfile FILE, and the like.
		if mcaOptions[name] && i+1 < len(launcherArgs) &&
			(strings.Contains(launcherArgs[i+1], "hostfile") || strings.Contains(launcherArgs[i+1], "dash_host")) {
			return true
		}
	}
	for _, v := range hostVars {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}
