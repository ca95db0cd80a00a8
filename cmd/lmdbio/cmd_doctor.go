package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/launch"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/topology"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

type doctorOptions struct {
	json bool
}

func newDoctorCommand() *cobra.Command {
	var opt doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check this machine's MPI, Slurm and shared-memory set-up",
		Long: `

Each check prints what it found, a verdict (ok, warn, fail) and, for a bad one,
what to do about it: the MPI library lmdbio was built with, the launchers on
PATH, the MPI plugins of Slurm's srun, the size of /dev/shm, and the limits on
open files and locked memory. It exits 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(opt) },
	}
	cmd.Flags().BoolVar(&opt.json, "json", false, "print one JSON object per check")
	return cmd
}

// check is one line of the doctor's report. The JSON line carries data
// only: what was found, and for a bad verdict a problem from a fixed
// vocabulary; the advice in words is for people.
type check struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Verdict   string `json:"verdict"` // ok, warn or fail
	Value     string `json:"value"`   // what was found: a version, a path, a limit, a list; "" for none
	Version   string `json:"version,omitempty"`
	SizeBytes int64  `json:"size_bytes,omitempty"`
	FreeBytes int64  `json:"free_bytes,omitempty"`
	Problem   string `json:"problem,omitempty"` // no-mpi, untested-mpi, not-found, no-answer, no-plugin, no-shm, small-shm, low-limit
	Found     string `json:"-"`                 // what was found, in words, when Value alone does not say it
	Advice    string `json:"-"`
}

// found is what the text report shows in its FOUND column.
func (c check) found() string {
	switch {
	case c.Found != "":
		return c.Found
	case c.Version != "":
		return c.Value + " (" + c.Version + ")"
	}
	return c.Value
}

func runDoctor(opt doctorOptions) error {
	flavor := topology.FlavorOf(mpi.LibraryVersion())
	checks := []check{checkMPI(flavor)}
	checks = append(checks, checkLaunchers(flavor)...)
	checks = append(checks, checkSrunPlugins(flavor), checkShm(), checkNoFile(), checkMemlock())
	failed := false
	for _, c := range checks {
		failed = failed || c.Verdict == "fail"
	}
	if opt.json {
		for _, c := range checks {
			c.Type = "check"
			_ = cli.PrintJSON(os.Stdout, c)
		}
	} else {
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "CHECK\tVERDICT\tFOUND\tADVICE")
		for _, c := range checks {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", c.Name, c.Verdict, c.found(), c.Advice)
		}
		_ = w.Flush()
	}
	if failed {
		return failure.New(failure.Runtime, "doctor: some checks failed")
	}
	return nil
}

func checkMPI(flavor topology.Flavor) check {
	version := firstLine(mpi.LibraryVersion())
	c := check{Name: "mpi library", Verdict: "ok", Value: version}
	switch flavor {
	case topology.NoMPI:
		c.Verdict, c.Value, c.Problem, c.Found = "warn", "", "no-mpi", "built without MPI (single rank only)"
		c.Advice = "rebuild with cgo and an MPI library (scripts/deps.sh; make build)"
	case topology.UnknownMPI:
		c.Verdict, c.Problem, c.Advice = "warn", "untested-mpi", "untested MPI family; Open MPI and MPICH are supported"
	}
	return c
}

func checkLaunchers(flavor topology.Flavor) []check {
	var out []check
	names := append(launch.MpirunNames(flavor), "srun", "sbatch", "salloc")
	for _, name := range names {
		path, err := exec.LookPath(name)
		c := check{Name: "launcher " + name, Verdict: "ok", Value: path}
		if err != nil {
			c.Verdict, c.Problem, c.Found = "warn", "not-found", "not found"
			c.Advice = "needed to start jobs with " + name
		} else {
			c.Version = firstLine(commandOutput(path, "--version"))
		}
		out = append(out, c)
	}
	return out
}

func checkSrunPlugins(flavor topology.Flavor) check {
	c := check{Name: "srun --mpi plugins"}
	srun, err := exec.LookPath("srun")
	if err != nil {
		c.Verdict, c.Found = "ok", "no Slurm here (lmdbio run uses mpirun)"
		return c
	}
	list := commandOutput(srun, "--mpi=list")
	c.Value = strings.Join(strings.Fields(strings.ReplaceAll(list, "MPI plugin types are...", "")), " ")
	want := flavor.SrunPlugin()
	switch {
	case list == "":
		c.Verdict, c.Problem, c.Advice = "warn", "no-answer", "srun --mpi=list gave no answer (is Slurm configured? SLURM_CONF)"
	case strings.Contains(list, want):
		c.Verdict = "ok"
	default:
		c.Verdict, c.Problem = "fail", "no-plugin"
		c.Advice = fmt.Sprintf("%s needs srun --mpi=%s: ask the admins for Slurm's %s plugin, or use mpirun inside the allocation", flavor, want, want)
	}
	return c
}

func checkShm() check {
	c := check{Name: "/dev/shm"}
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil {
		c.Verdict, c.Problem, c.Found = "fail", "no-shm", err.Error()
		c.Advice = "lmdbio hands data to learners through POSIX shared memory: mount a tmpfs on /dev/shm"
		return c
	}
	c.SizeBytes, c.FreeBytes = int64(st.Blocks)*st.Bsize, int64(st.Bavail)*st.Bsize
	c.Value = "/dev/shm"
	c.Found = fmt.Sprintf("size %s, free %s", cli.HumanBytes(c.SizeBytes), cli.HumanBytes(c.FreeBytes))
	c.Verdict = "ok"
	if c.FreeBytes < 1<<30 {
		c.Verdict, c.Problem = "warn", "small-shm"
		c.Advice = "under 1 GiB free limits prefetch: enlarge it (containers: --shm-size; mount -o remount,size=8G /dev/shm)"
	}
	return c
}

func checkNoFile() check {
	var lim unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	c := check{Name: "open files limit", Verdict: "ok", Value: limitString(lim.Cur)}
	if lim.Cur < 4096 {
		c.Verdict, c.Problem, c.Advice = "warn", "low-limit", "raise it (ulimit -n 65536) for large jobs: MPI opens a socket per peer"
	}
	return c
}

func checkMemlock() check {
	var lim unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim)
	c := check{Name: "locked memory limit", Verdict: "ok", Value: limitString(lim.Cur)}
	if lim.Cur != unix.RLIM_INFINITY && lim.Cur < 64<<20 {
		c.Verdict, c.Problem, c.Advice = "warn", "low-limit", "RDMA networks (InfiniBand) need it unlimited: ulimit -l unlimited, or ask the admins"
	}
	return c
}

func limitString(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return fmt.Sprint(v)
}

// commandOutput runs a short query command and returns its output, empty on
// failure. A five-second bound keeps a broken Slurm from hanging the doctor.
func commandOutput(path string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
