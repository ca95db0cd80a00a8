package mpi

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// hostedEnv names the environment variable that makes the test binary act
// as a host program that initialised MPI before calling Init.
const hostedEnv = "LMDBIO_MPI_TEST_HOSTED"

// runHosted is the whole life of a hosted process; it returns the exit code.
func runHosted() int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "hosted: "+format+"\n", args...)
		return 1
	}
	if err := hostInit(); err != nil {
		return fail("host MPI_Init: %v", err)
	}
	got, err := Init(ThreadSingle)
	if err != nil {
		return fail("Init: %v", err)
	}
	if !InitializedByHost() {
		return fail("InitializedByHost is false after the host's MPI_Init")
	}
	if got != ThreadMultiple {
		return fail("Init returned %v, want the host's MPI_THREAD_MULTIPLE", got)
	}
	w := World()
	out := make([]int64, 1)
	if err := w.AllreduceInt64([]int64{7}, out, Sum); err != nil || out[0] != 7*int64(w.Size()) {
		return fail("Allreduce in a hosted world: %v, %v", out, err)
	}
	if err := Finalize(); err != nil {
		return fail("Finalize: %v", err)
	}
	live, err := hostFinalize()
	if err != nil {
		return fail("host MPI_Finalize: %v", err)
	}
	if !live {
		return fail("Finalize finalised the host's MPI")
	}
	fmt.Println("hosted: ok")
	return 0
}

// TestHostedInit runs the test binary again as a host program that called
// MPI_Init itself, and checks Init joins it and Finalize leaves it alone.
func TestHostedInit(t *testing.T) {
	if World().Size() > 1 {
		t.Skip("runs in the single-process test run only: a child of an mpirun rank would join the job")
	}
	if !haveMPI {
		t.Skip("no MPI in this build")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// A fresh singleton: drop what this process's MPI put in the environment.
	for _, kv := range os.Environ() {
		name := kv[:strings.IndexByte(kv, '=')]
		if (strings.HasPrefix(name, "OMPI_") && !strings.HasPrefix(name, "OMPI_ALLOW_RUN_AS_ROOT")) ||
			strings.HasPrefix(name, "PMIX_") || strings.HasPrefix(name, "PMI_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, hostedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hosted: ok") {
		t.Errorf("hosted process: %v\n%s", err, out)
	}
}
