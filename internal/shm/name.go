package shm

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// namePrefix starts the name of every segment this package creates.
const namePrefix = "lmdbio."

// Name returns a segment name "lmdbio.<job>.<pid>.<suffix>" for a segment
// this process creates. The pid lets SweepStale tell whether the creator is
// still alive even when the header cannot be read. Characters that would
// break parsing or paths are replaced by '_'; an empty job becomes "local".
func Name(job, suffix string) string {
	return fmt.Sprintf("%s%s.%d.%s", namePrefix, cleanJob(job), os.Getpid(), clean(suffix, true))
}

// Prefix returns the prefix shared by the names of all segments of a job,
// for SweepStale.
func Prefix(job string) string { return namePrefix + cleanJob(job) + "." }

// JobIDEnv names the variable lmdbio run sets to an id of its own for every
// process of the job it starts, so that it can tell the job's segments
// from other jobs' when it cleans up after a failure.
const JobIDEnv = "LMDBIO_JOB_ID"

// JobID returns an identifier of the current job, the same in every process
// of the job on a node: JobIDEnv, else SLURM_JOB_ID, else the PMIx namespace
// or the OpenMPI job id set by mpirun, else "local".
func JobID() string {
	for _, v := range []string{JobIDEnv, "SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_orte_ess_jobid"} {
		if id := os.Getenv(v); id != "" {
			return cleanJob(id)
		}
	}
	return "local"
}

func cleanJob(job string) string {
	if job == "" {
		return "local"
	}
	return clean(job, false)
}

// clean keeps letters, digits, '-' and '_' (and '.' if dots is set), and
// replaces anything else by '_'. Job ids may hold no dots, since dots
// separate the fields of a name.
func clean(s string, dots bool) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r == '.' && dots:
			return r
		}
		return '_'
	}, s)
}

// parseName splits a segment name into its job, creator pid and suffix.
func parseName(name string) (job string, pid int, suffix string, ok bool) {
	rest, found := strings.CutPrefix(name, namePrefix)
	if !found {
		return "", 0, "", false
	}
	parts := strings.SplitN(rest, ".", 3)
	if len(parts) != 3 || parts[0] == "" {
		return "", 0, "", false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return "", 0, "", false
	}
	return parts[0], pid, parts[2], true
}

// checkName rejects names that are not a single file name.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("shm: invalid segment name %q", name)
	}
	return nil
}
