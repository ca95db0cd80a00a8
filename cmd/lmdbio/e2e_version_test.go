package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestE2EVersion: lmdbio version and --version say the version the build
// was given, the commit, the Go release and the MPI library.
func TestE2EVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "lmdbio")
	goBuild := exec.Command(goTool(), "build", "-ldflags", "-X main.version=9.8.7-test -X main.commit=abc123", "-o", bin, ".")
	if out, err := goBuild.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	r := execute(t, time60s, baseEnv(), bin, "version", "--json")
	var v build
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 0 {
		t.Fatalf("version --json: %v\n%s", err, r)
	}
	if v.Type != "version" || v.Version != "9.8.7-test" || v.Go != runtime.Version() || v.MPI == "" {
		t.Errorf("version --json = %+v", v)
	}
	if mpirunPath != "" && !strings.Contains(v.MPI, "Open MPI") && !strings.Contains(v.MPI, "MPICH") {
		t.Errorf("MPI library %q is neither Open MPI nor MPICH", v.MPI)
	}
	// The commit Go recorded, or where it recorded none (a git worktree,
	// -buildvcs=false) the one the build was given.
	want := "abc123"
	if out, err := exec.Command(goTool(), "version", "-m", bin).Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
				want = strings.TrimPrefix(f[1], "vcs.revision=")
			}
		}
	}
	if v.Commit != want {
		t.Errorf("commit %q, want %q", v.Commit, want)
	}
	text := execute(t, time60s, baseEnv(), bin, "version")
	flag := execute(t, time60s, baseEnv(), bin, "--version")
	if text.code != 0 || flag.code != 0 || text.stdout != flag.stdout {
		t.Errorf("version and --version differ:\n%s\n%s", text, flag)
	}
	for _, want := range []string{"lmdbio 9.8.7-test\n", "\ncommit  ", "\ngo      " + runtime.Version(), "\nmpi     " + v.MPI} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("version output lacks %q:\n%s", want, text.stdout)
		}
	}
}

// TestE2ECompletion: the shell completion scripts load, and complete
// commands.
func TestE2ECompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := lmdbio(t, nil, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "lmdbio") || r.stderr != "" {
			t.Errorf("completion %s:\n%.300s", shell, r)
		}
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		script := lmdbio(t, nil, "completion", "bash").stdout
		r := execute(t, time60s, baseEnv(), bash, "-c", script+"\ncomplete -p lmdbio")
		if r.code != 0 || !strings.Contains(r.stdout, "__start_lmdbio lmdbio") {
			t.Errorf("the bash script does not load:\n%s", r)
		}
	}
	r := lmdbio(t, nil, "__complete", "dig")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "digest\t") {
		t.Errorf("completing dig:\n%s", r)
	}
}
