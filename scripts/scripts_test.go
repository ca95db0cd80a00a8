// Package scripts holds the tests of the shell scripts beside it: how the
// build finds MPI (mpi-flags.sh) and links libhdf5 (hdf5-flags.sh), what
// deps.sh installs and when, and how mpi-tests.sh judges a run.
package scripts

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// run runs a command from the repository's root with extra environment,
// and returns its stdout, stderr and exit status.
func run(t *testing.T, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = ".."
	c.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if err != nil && c.ProcessState == nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), c.ProcessState.ExitCode()
}

// pkgConfigDir makes a pkg-config directory holding only the given modules
// of this machine, so the search order can be tried without the others.
func pkgConfigDir(t *testing.T, modules ...string) []string {
	dir := t.TempDir()
	for _, m := range modules {
		src, err := exec.Command("pkg-config", "--variable", "pcfiledir", m).Output()
		if err != nil {
			t.Skipf("no pkg-config module %s here", m)
		}
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(src)), m+".pc"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, m+".pc"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"PKG_CONFIG_LIBDIR=" + dir, "PKG_CONFIG_PATH="}
}

// TestMPIFlagsOrder: the modules and wrappers a cluster provides are found
// in the documented order, and no MPI at all is one clear message.
func TestMPIFlagsOrder(t *testing.T) {
	if _, err := exec.LookPath("pkg-config"); err != nil {
		t.Skip("no pkg-config")
	}
	type flagsCase struct {
		name, which, family, cflagIn string
		env                          []string
	}
	cases := []flagsCase{
		{"module ompi-c", "pkg-config ompi-c", "openmpi", "-I", append(pkgConfigDir(t, "ompi-c", "ompi"), "MPICC=")},
		{"module ompi", "pkg-config ompi", "openmpi", "-I", append(pkgConfigDir(t, "ompi"), "MPICC=")},
		{"module mpich", "pkg-config mpich", "mpich", "mpich", append(pkgConfigDir(t, "mpich"), "MPICC=")},
		{"mpi first", "pkg-config mpi", "openmpi", "-I", append(pkgConfigDir(t, "mpich", "mpi"), "MPICC=")},
	}
	for _, w := range []struct{ mpicc, which, family string }{
		{"mpicc.openmpi", "mpicc.openmpi --showme", "openmpi"},
		{"mpicc.mpich", "mpicc.mpich -show", "mpich"},
	} {
		if _, err := exec.LookPath(w.mpicc); err == nil {
			cases = append(cases,
				flagsCase{"wrapper " + w.mpicc, w.which, w.family, "-I", []string{"PKG_CONFIG=false", "MPICC=" + w.mpicc}},
				// A wrapper named in MPICC is the user's choice: it comes
				// before pkg-config.
				flagsCase{"MPICC=" + w.mpicc + " first", w.which, w.family, "-I", append(pkgConfigDir(t, "mpi"), "MPICC="+w.mpicc)})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			which, _, _ := run(t, c.env, "scripts/mpi-flags.sh", "--which")
			family, _, _ := run(t, c.env, "scripts/mpi-flags.sh", "--family")
			cflags, _, _ := run(t, c.env, "scripts/mpi-flags.sh", "--cflags")
			libs, _, code := run(t, c.env, "scripts/mpi-flags.sh", "--libs")
			if code != 0 || strings.TrimSpace(which) != c.which || strings.TrimSpace(family) != c.family {
				t.Errorf("found by %q, family %q (exit %d); want %q, %q", which, family, code, c.which, c.family)
			}
			if !strings.Contains(cflags, c.cflagIn) || !strings.Contains(libs, "-lmpi") {
				t.Errorf("cflags %q, libs %q", cflags, libs)
			}
		})
	}
	_, stderr, code := run(t, []string{"PKG_CONFIG=false", "MPICC=no-such-mpicc"}, "scripts/mpi-flags.sh")
	if code != 1 || !strings.Contains(stderr, "no MPI found") {
		t.Errorf("without any MPI: exit %d, stderr %q", code, stderr)
	}
}

// TestBuildWithWrapper: lmdbio builds with the mpiflags tag from the flags
// of an MPI found only by its compiler wrapper, Open MPI's (--showme) and
// MPICH's (-show), and runs a 2-rank job under that MPI's launcher.
func TestBuildWithWrapper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lmdbio twice; skipped with -short")
	}
	for _, w := range []struct{ mpicc, launcher, library string }{
		{"mpicc.openmpi", "mpirun.openmpi", "Open MPI"},
		{"mpicc.mpich", "mpiexec.mpich", "MPICH"},
	} {
		t.Run(w.mpicc, func(t *testing.T) {
			if _, err := exec.LookPath(w.mpicc); err != nil {
				t.Skipf("%s is not installed", w.mpicc)
			}
			// pkg-config is kept from mpi-flags.sh only: other packages
			// (LMDB) still find their libraries with it.
			env := []string{"MPICC=" + w.mpicc, "CGO_CFLAGS=", "CGO_LDFLAGS="}
			bin := filepath.Join(t.TempDir(), "lmdbio")
			script := `eval "$(PKG_CONFIG=false scripts/mpi-flags.sh)" && [ "$MPITAGS" = mpiflags ] && "$GO" build -tags "$MPITAGS" -o "$BIN" ./cmd/lmdbio`
			_, stderr, code := run(t, append(env, "GO="+goTool(), "BIN="+bin), "bash", "-c", script)
			if code != 0 {
				t.Fatalf("build with the flags of %s: exit %d\n%s", w.mpicc, code, stderr)
			}
			out, _, _ := run(t, nil, bin, "version")
			if !strings.Contains(out, "\nmpi     "+w.library) {
				t.Errorf("built against the wrong MPI:\n%s", out)
			}
			stdout, stderr, code := run(t, []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
				"OMPI_MCA_btl_vader_single_copy_mechanism=none"}, bin, "run", "-n", "2", "--", bin, "topology")
			if code != 0 || !strings.Contains(stdout, "rank=0 ") || !strings.Contains(stdout, "rank=1 ") || !strings.Contains(stdout, "local_size=2") {
				t.Errorf("2-rank job: exit %d\n%s%s", code, stdout, stderr)
			}
			if dry, _, _ := run(t, nil, bin, "run", "--dry-run", "-n", "2", "--", "true"); !strings.Contains(dry, w.launcher) {
				t.Errorf("lmdbio run would use %q, want %s", dry, w.launcher)
			}
		})
	}
}

// goTool is the go command that runs these tests.
func goTool() string { return filepath.Join(runtime.GOROOT(), "bin", "go") }

// TestDepsNothingMissing: where everything is present, deps.sh changes
// nothing and needs no root: it runs as an unprivileged user, quietly.
func TestDepsNothingMissing(t *testing.T) {
	if _, _, code := run(t, nil, "scripts/deps.sh", "--test", "--check"); code != 0 {
		t.Skip("something the tests need is missing here")
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and runuser to become another user")
	}
	root, _ := filepath.Abs("..")
	stdout, stderr, code := run(t, nil, runuser, "-u", "nobody", "--", filepath.Join(root, "scripts/deps.sh"), "--test")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("as nobody with nothing missing: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestDepsOffDebian: without apt-get, deps.sh names what is missing and
// installs nothing.
func TestDepsOffDebian(t *testing.T) {
	// A PATH with the tools the script and its checks use, but no
	// apt-get and no MPI.
	bin := t.TempDir()
	for _, tool := range []string{"bash", "env", "dirname", "sed", "id", "cat", "cc", "gcc", "pkg-config", "make",
		"mdb_load", "python3", "fusermount3"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := []string{"PATH=" + bin, "PKG_CONFIG=false", "MPICC=no-such-mpicc", "PYTHON=python3"}
	_, stderr, code := run(t, env, filepath.Join(bin, "bash"), "scripts/deps.sh")
	if code != 1 || !strings.Contains(stderr, "MPI library and headers") || !strings.Contains(stderr, "no apt-get here") ||
		strings.Contains(stderr, "installing") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "Slurm") {
		t.Errorf("Slurm asked for without --slurm:\n%s", stderr)
	}
}

// TestMakeDeps: make demo installs only what building and running need;
// make test asks for Slurm only where the Slurm tests run.
func TestMakeDeps(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	for _, c := range []struct {
		target, ci, want string
	}{
		{"demo", "", "scripts/deps.sh\n"},
		{"test", "", "scripts/deps.sh --test\n"},
		{"test", "true", "scripts/deps.sh --test --slurm\n"},
	} {
		out, stderr, code := run(t, []string{"CI=" + c.ci, "LMDBIO_SLURM_TESTS="}, "make", "-n", c.target)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("make -n %s (CI=%q): want %q in:\n%s%s", c.target, c.ci, c.want, out, stderr)
		}
	}
}

// TestMPITestsCountsSkips: mpi-tests.sh fails a run in which no test ran
// or every test skipped, and passes one with a passing test.
func TestMPITestsCountsSkips(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("mpirun is not on PATH")
	}
	runs := "./scripts/testdata/skipping|1 2||\n./scripts/testdata/passing|2||\n./scripts/testdata/passing|1||^TestNothing"
	stdout, stderr, code := run(t, []string{"MPI_TEST_RUNS=" + runs, "MPITAGS=", "GO=" + goTool()}, "scripts/mpi-tests.sh")
	var verdicts []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "PASS ") || strings.HasPrefix(l, "FAIL ") {
			verdicts = append(verdicts, l)
		}
	}
	want := []string{
		"FAIL ./scripts/testdata/skipping np=1 (every test skipped)",
		"FAIL ./scripts/testdata/skipping np=2 (every test skipped)",
		"PASS ./scripts/testdata/passing np=2 (1 passed, 1 skipped",
		"FAIL ./scripts/testdata/passing np=1 (no test ran)",
	}
	if code != 1 || len(verdicts) != len(want) {
		t.Fatalf("exit %d, verdicts %q\n%s%s", code, verdicts, stdout, stderr)
	}
	for i := range want {
		if !strings.HasPrefix(verdicts[i], want[i]) {
			t.Errorf("verdict %q, want %q", verdicts[i], want[i])
		}
	}
}

// TestMakeInstall: make install puts the command and its completions under
// PREFIX, and the installed command runs.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lmdbio; skipped with -short")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	prefix := t.TempDir()
	if out, stderr, code := run(t, []string{"GO=" + goTool()}, "make", "install", "PREFIX="+prefix); code != 0 {
		t.Fatalf("make install: exit %d\n%s%s", code, out, stderr)
	}
	for _, f := range []string{"bin/lmdbio", "bin/lmdbio-bench", "share/bash-completion/completions/lmdbio", "share/zsh/site-functions/_lmdbio",
		"share/fish/vendor_completions.d/lmdbio.fish"} {
		if st, err := os.Stat(filepath.Join(prefix, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not installed: %v", f, err)
		}
	}
	// The version make gave it: git's description of the checkout.
	want := "devel"
	if _, err := exec.LookPath("git"); err == nil {
		if d, _, code := run(t, nil, "git", "describe", "--tags", "--always", "--dirty"); code == 0 {
			want = strings.TrimSpace(d)
		}
	}
	out, _, code := run(t, nil, filepath.Join(prefix, "bin/lmdbio"), "version")
	if code != 0 || !strings.HasPrefix(out, "lmdbio "+want+"\n") {
		t.Errorf("the installed command says:\n%s\nwant version %s", out, want)
	}
	// Where the archive is installed, the command carries libhdf5 inside.
	if flags, _, _ := run(t, nil, "scripts/hdf5-flags.sh", t.TempDir()); flags != "" {
		f, err := elf.Open(filepath.Join(prefix, "bin/lmdbio"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		libs, err := f.ImportedLibraries()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range libs {
			if strings.HasPrefix(l, "libhdf5") || strings.HasPrefix(l, "libcurl") {
				t.Errorf("bin/lmdbio needs %s, with libhdf5's archive installed (it needs %v)", l, libs)
			}
		}
	}
}

// TestHDF5Flags: with libhdf5's archive installed, hdf5-flags.sh points cgo
// at a linker script that groups the archives; asked not to, or without
// hdf5 in pkg-config, it prints nothing and the shared library is linked.
func TestHDF5Flags(t *testing.T) {
	for _, env := range [][]string{{"HDF5_STATIC=no"}, {"PKG_CONFIG=false"}} {
		if out, stderr, code := run(t, env, "scripts/hdf5-flags.sh", t.TempDir()); code != 0 || out != "" {
			t.Errorf("%v: exit %d, printed %q %s; want nothing", env, code, out, stderr)
		}
	}
	dir := t.TempDir()
	out, stderr, code := run(t, []string{"CGO_LDFLAGS=-O1"}, "scripts/hdf5-flags.sh", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if out == "" {
		t.Skip("no libhdf5.a beside the libhdf5 pkg-config knows")
	}
	if want := "export CGO_LDFLAGS=-O1\\ -L" + dir + "\n"; out != want {
		t.Errorf("printed %q, want %q", out, want)
	}
	for _, name := range []string{"libhdf5.a", "libhdf5_hl.a"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		script := string(b)
		if !strings.HasPrefix(script, "GROUP ( ") || !strings.Contains(script, "AS_NEEDED ( ") {
			t.Errorf("%s is not a group of archives: %q", name, script)
		}
		for _, w := range strings.Fields(script) {
			if strings.HasSuffix(w, ".a") {
				if _, err := os.Stat(w); err != nil {
					t.Errorf("%s names %s: %v", name, w, err)
				}
			}
		}
	}
}
