// Package startup bounds the start-up of an MPI job: MPI_Init and the first
// collectives, in which some MPI libraries wait forever for ranks that
// cannot reach each other (a network or transport setting). lmdbio's
// commands and its C library both use it, so a job started either way ends
// alike, with the same line, when its ranks cannot meet.
package startup

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"
)

// Env names the variable that sets the limit, a duration such as 30s.
const Env = "LMDBIO_STARTUP_TIMEOUT"

// Default is the limit when Env is not set.
const Default = 3 * time.Minute

// Message starts the line a rank prints when the limit passes; lmdbio run
// looks for it in the launcher's output.
const Message = "lmdbio: MPI did not finish starting"

// ExitStatus is the status of a process the limit ended: a runtime
// failure, as lmdbio's commands report one.
const ExitStatus = 1

// Grace is how long a rank other than the job's first waits, once its
// limit has passed, before it ends. The first rank times out too (see
// Watch) and is the one that says why; a launcher such as mpirun ends the
// job at the first rank that exits non-zero, so a silent rank that left
// first could end the first one before its line got out. 6 ranks on 2
// cores lost the line that way.
const Grace = 5 * time.Second

// The process's exit, error stream, environment and sleep, replaced by
// tests.
var (
	exit             = os.Exit
	stderr io.Writer = os.Stderr
	env              = os.Getenv
	sleep            = time.Sleep
)

// Limit reads Env through getenv: Default when it is unset, an error
// naming the variable when it is not a positive duration.
func Limit(getenv func(string) string) (time.Duration, error) {
	v := getenv(Env)
	if v == "" {
		return Default, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 30s", Env, v)
	}
	return d, nil
}

// Watch ends the process with ExitStatus if the start-up has not finished
// within d, and returns the function that calls the watch off. A rank
// blocked inside MPI cannot be woken or made to return, so ending it is
// all there is to do; its exit ends the job through the launcher. The
// process ends at once: exit handlers (atexit, a language runtime's) would
// call into the MPI that is blocked.
//
// The job's first rank says why in one line, and a process outside a
// launch does: the ranks of a job that cannot start time out alike and
// cannot agree who speaks, and 600 ranks on one host printed the line 480
// times. Rank 0 cannot finish the start-up's collectives before the others
// do, so it times out whenever any rank does.
//
// The other ranks wait Grace before they end, so that the first one speaks
// before the launcher ends the job.
//
// before runs first, on the way out: what the process must not leave
// behind (it must not call into MPI).
func Watch(d time.Duration, before ...func()) (stop func()) {
	timer := time.AfterFunc(d, func() {
		for _, f := range before {
			f()
		}
		if LaunchRank(env) <= 0 {
			fmt.Fprintf(stderr, "%s in %v: %s; %s sets the limit\n", Message, d, why(), Env)
		} else {
			sleep(Grace)
		}
		exit(ExitStatus)
	})
	return func() { timer.Stop() }
}

// why says what may have held the start-up up.
func why() string {
	s := "the ranks may not reach each other (network, firewall, or the MPI's transport settings such as --mca btl)"
	if n, cores := localRanks(env), runtime.NumCPU(); n >= crowded*cores {
		s += fmt.Sprintf(", or the %d ranks on this host's %d cores start too slowly", n, cores)
	}
	return s
}

// crowded is the number of ranks per core from which a start-up may be
// slow for want of cores alone (docs/decisions/0006-crowded-start-up.md).
const crowded = 64

// localRanks is the number of ranks the launcher started on this host, 0
// when it does not say (Open MPI and MPICH's Hydra do).
func localRanks(getenv func(string) string) int {
	for _, v := range []string{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"} {
		if n, err := strconv.Atoi(getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// LaunchRank is this process's rank as its launcher set it before MPI
// started (Open MPI, PMIx, MPICH's PMI, or srun inside a step), -1 outside
// a launch.
func LaunchRank(getenv func(string) string) int {
	vars := []string{"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}
	if getenv("SLURM_STEP_ID") != "" {
		vars = append(vars, "SLURM_PROCID")
	}
	for _, v := range vars {
		if r, err := strconv.Atoi(getenv(v)); err == nil && r >= 0 {
			return r
		}
	}
	return -1
}
