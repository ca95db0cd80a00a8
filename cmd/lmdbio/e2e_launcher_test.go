package main

import (
	"strings"
	"testing"
)

// TestE2ELauncherWithoutMPI: processes started by a launcher without MPI
// (torchrun sets RANK and WORLD_SIZE) each see a world of one; lmdbio stops
// with one line that says how to launch the job instead of letting every
// process read the whole dataset. A torchrun of one process is not stopped.
func TestE2ELauncherWithoutMPI(t *testing.T) {
	dir, want := genDB(t, "--records", "50", "--size", "1KiB")
	for _, env := range [][]string{{"RANK=1", "WORLD_SIZE=4"}, {"RANK=0", "WORLD_SIZE=4", "LOCAL_RANK=0"}} {
		r := lmdbio(t, env, "digest", dir)
		checkOneLineError(t, r, 2, "lmdbio: ")
		if !strings.Contains(r.stderr, "lmdbio run -n 4 -- ") || r.stdout != "" {
			t.Errorf("%v: want no digest and the launch advice:\n%s", env, r)
		}
	}
	r := lmdbio(t, []string{"RANK=0", "WORLD_SIZE=1"}, "digest", dir)
	if got := strings.TrimSpace(r.stdout); r.code != 0 || got != want.String() {
		t.Errorf("a world of one: got %q, want %q:\n%s", got, want, r)
	}
}
