package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/shm"
)

// The processes of a job on this host are found by a variable lmdbio run
// puts in the launcher's environment (shm.JobIDEnv=<id>): the launcher's
// ranks here inherit it, and so does whatever they start, in whatever
// process group or session they end up. It is how lmdbio run and its guard
// end a job's leftovers and tell the job's files in /dev/shm from other
// jobs'.

// jobProc is a process of the job on this host.
type jobProc struct {
	pid      int
	start    uint64 // start time, clock ticks since boot: tells a reused pid apart
	ompiJob  string // Open MPI's job id (decimal), "" for other MPIs
	vaderDir string // where Open MPI's shared-memory transport keeps its files
}

// findJobProcs lists this user's live processes that carry job id in
// their environment.
func findJobProcs(id string) []jobProc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	marker := []byte(shm.JobIDEnv + "=" + id + "\x00")
	self, uid := os.Getpid(), uint32(os.Geteuid())
	var out []jobProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if info, err := e.Info(); err != nil || info.Sys().(*syscall.Stat_t).Uid != uid {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, marker...)) {
			continue
		}
		start, ok := procStart(pid)
		if !ok {
			continue
		}
		out = append(out, newJobProc(pid, start, env))
	}
	return out
}

// newJobProc reads what lmdbio run needs to know from a process's
// environment (NUL-separated NAME=value pairs).
func newJobProc(pid int, start uint64, env []byte) jobProc {
	vars := map[string]string{}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			vars[k] = v
		}
	}
	p := jobProc{pid: pid, start: start, ompiJob: vars["OMPI_MCA_ess_base_jobid"],
		vaderDir: vars["OMPI_MCA_btl_vader_backing_directory"]}
	if p.vaderDir == "" {
		p.vaderDir = "/dev/shm"
	}
	return p
}

// procStart returns the start time of process pid, and false when it is
// gone or a zombie (it has exited and holds nothing but its pid).
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parentheses: count
	// fields from the last ')'. Field 3 is the state, field 22 the start.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	return start, err == nil
}

// running reports whether process pid that started at start still runs.
func running(pid int, start uint64) bool {
	s, ok := procStart(pid)
	return ok && s == start
}

// killJobProcs sends SIGKILL to every process of job id on this host and
// waits up to grace for them to be gone. It returns the processes it met.
func killJobProcs(id string, grace time.Duration) []jobProc {
	procs := findJobProcs(id)
	for _, p := range procs {
		if running(p.pid, p.start) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	deadline := time.Now().Add(grace)
	for len(findJobProcs(id)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return procs
}

// ompiJobs collects the Open MPI job ids and transport directories of
// procs into known, a set of "dir|jobid" keys.
func ompiJobs(procs []jobProc, known map[string]bool) {
	for _, p := range procs {
		if p.ompiJob != "" {
			known[p.vaderDir+"|"+p.ompiJob] = true
		}
	}
}

// cleanUpJob removes what the dead processes of job id left in shared
// memory on this host: lmdbio's segments (those whose creator is gone),
// and the files of Open MPI's shared-memory transport of the Open MPI jobs
// in ompi ("dir|jobid" keys), which Open MPI leaves when its ranks die by
// signal. Call it once no process of the job is left here; files of other
// jobs are never touched.
func cleanUpJob(id string, ompi map[string]bool) error {
	_, err := shm.SweepStale(shm.Prefix(id))
	errs := []error{err}
	for key := range ompi {
		dir, job, _ := strings.Cut(key, "|")
		errs = append(errs, removeVaderFiles(dir, job))
	}
	return errors.Join(errs...)
}

// removeVaderFiles removes this user's files of Open MPI job (decimal id)
// from dir: vader_segment.<host>[.<uid>].<job in hex>.<local rank>.
func removeVaderFiles(dir, job string) error {
	n, err := strconv.ParseUint(job, 10, 32)
	if err != nil {
		return nil // not an Open MPI 4 job id: nothing of ours to match
	}
	hex := strconv.FormatUint(n, 16)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if !isVaderFileOf(e.Name(), hex) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// isVaderFileOf reports whether name is a file of Open MPI's vader
// transport for the job whose id is hex.
func isVaderFileOf(name, hex string) bool {
	f := strings.Split(name, ".")
	if len(f) < 4 || f[0] != "vader_segment" || f[len(f)-2] != hex {
		return false
	}
	_, err := strconv.Atoi(f[len(f)-1])
	return err == nil
}

// newRunID makes the id of one lmdbio run job: unique on the host and
// free of dots, which separate the fields of segment names.
func newRunID() string {
	start, _ := procStart(os.Getpid())
	return fmt.Sprintf("run-%d-%d-%x", os.Getpid(), start, time.Now().UnixNano()&0xffffff)
}
