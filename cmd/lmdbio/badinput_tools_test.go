package main

// Bad input to the tools around the loader (gen,
// info): one line, exit 2, no crash, no output, and nothing left behind.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// checkAbsent fails the test if path exists.
func checkAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s was left behind", path)
	}
}

// TestBadInputToolsGenOut: an output gen cannot create is refused before
// anything is written, with a line about --out.
func TestBadInputToolsGenOut(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "file", nil)
	existing := filepath.Join(dir, "existing")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	hdf5 := []string{"gen", "--format", "hdf5", "--records", "2", "--size", "3x4x4"}
	lmdb := []string{"gen", "--records", "2", "--size", "100"}
	for _, args := range [][]string{
		append(hdf5, "--out", existing),
		append(hdf5, "--overwrite", "--out", existing),
		append(hdf5, "--out", filepath.Join(file, "x.h5")),
		append(lmdb, "--out", filepath.Join(file, "data.mdb")),
		append(lmdb, "--out", file),
	} {
		checkBadInputQuickly(t, lmdbio(t, nil, args...), "lmdbio gen: --out ")
	}
	if ents, _ := os.ReadDir(existing); len(ents) != 0 {
		t.Errorf("gen wrote into %s: %v", existing, ents)
	}
}

// TestBadInputToolsGenUnwritable: a directory gen may not write in is bad
// input for both formats, as for any user (root runs gen as nobody).
func TestBadInputToolsGenUnwritable(t *testing.T) {
	dir := worldDir(t)
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"gen", "--format", "hdf5", "--records", "2", "--size", "3x4x4", "--out", filepath.Join(ro, "new.h5")},
		{"gen", "--format", "hdf5", "--records", "2", "--size", "3x4x4", "--out", filepath.Join(ro, "sub", "new.h5")},
		{"gen", "--records", "2", "--size", "100", "--out", filepath.Join(ro, "new")},
	} {
		checkBadInputQuickly(t, lmdbioUnprivileged(t, dir, args...), "lmdbio gen: --out ")
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("gen wrote into %s: %v", ro, ents)
	}
}

// worldDir is a temporary directory every user may enter and write in.
func worldDir(t *testing.T) string {
	dir := shortTempDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// lmdbioUnprivileged runs lmdbio args as user nobody when the tests run as
// root, for whom every directory is writable; else as the tests' user.
// dir, which every user may enter, holds a copy of the binary.
func lmdbioUnprivileged(t *testing.T, dir string, args ...string) result {
	t.Helper()
	bin := filepath.Join(dir, "lmdbio")
	if _, err := os.Stat(bin); err != nil {
		copyFile(t, lmdbioBin, bin)
		if err := os.Chmod(bin, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time60s)
	defer cancel()
	c, read := command(ctx, t, baseEnv(), bin, args...)
	if os.Geteuid() == 0 {
		c.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	start := time.Now()
	err := c.Run()
	r := result{args: append([]string{bin}, args...), elapsed: time.Since(start), timedOut: ctx.Err() != nil}
	r.stdout, r.stderr = read()
	r.code = exitStatus(c, err)
	if c.ProcessState == nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return r
}

// TestBadInputToolsGenSize: datasets that cannot be written, values too
// large to hold, are refused up front with one line naming the numbers,
// and leave nothing behind.
func TestBadInputToolsGenSize(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if free := fs.Bavail * uint64(fs.Bsize); free > 90<<40 {
		t.Skipf("%d bytes free: 100 billion 1 KiB records might fit", free)
	}
	out := filepath.Join(dir, "g", "g")
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"--records", "10", "--size", "10TiB"}, "lmdbio gen: --size 10TiB: "},
		{[]string{"--records", "100000000000", "--size", "1KiB"}, "lmdbio gen: --records 100000000000 of --size 1KiB make at least 93.1 TiB"},
		{[]string{"--records", "1", "--size", "100GiB"}, "lmdbio gen: --size 100GiB: "},
		{[]string{"--records", "1", "--size", "1KiB,100GiB"}, "lmdbio gen: --size 1KiB,100GiB: "},
		{[]string{"--format", "hdf5", "--records", "1", "--size", "2GiB"}, "lmdbio gen: --size 2GiB: "},
		{[]string{"--format", "hdf5", "--records", "1", "--size", "100000x100000x3"}, "lmdbio gen: --size 100000x100000x3: "},
		{[]string{"--format", "hdf5", "--records", "100000000", "--size", "3x224x224"}, "lmdbio gen: --records 100000000 of --size 3x224x224 make"},
	} {
		r := lmdbio(t, nil, append([]string{"gen", "--out", out}, c.args...)...)
		checkBadInputQuickly(t, r, c.prefix)
		checkAbsent(t, filepath.Dir(out))
	}
}

// TestBadInputToolsGenCleanUp: a gen that fails after it has created its
// output (here at the file size limit) takes away what it created, and only
// that, so the next run is not refused for a half-written dataset.
func TestBadInputToolsGenCleanUp(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, made string }{
		{filepath.Join(dir, "a", "b", "db"), filepath.Join(dir, "a")},
		{filepath.Join(dir, "c", "f.h5"), filepath.Join(dir, "c")},
	} {
		args := []string{"gen", "--records", "100", "--size", "3000", "--out", c.out}
		if strings.HasSuffix(c.out, ".h5") {
			args = append(args, "--format", "hdf5")
		}
		// ulimit -f 100: writes past 100 KiB fail (EFBIG; Go ignores SIGXFSZ).
		r := execute(t, time60s, baseEnv(), "/bin/sh", append([]string{"-c", `ulimit -f 100 && exec "$0" "$@"`, lmdbioBin}, args...)...)
		checkOneLineError(t, r, 1, "lmdbio: gen: write ")
		checkAbsent(t, c.made)
		if r := lmdbio(t, nil, args...); r.code != 0 {
			t.Errorf("the next run:\n%s", r)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "x" {
		t.Errorf("a file gen did not create: %q, %v", b, err)
	}
}

// TestBadInputToolsGenOutputs: gen writes one output, named by --out or
// the argument: both, naming two, is refused.
func TestBadInputToolsGenOutputs(t *testing.T) {
	dir := t.TempDir()
	k, k2 := filepath.Join(dir, "k"), filepath.Join(dir, "k2")
	r := lmdbio(t, nil, "gen", "--records", "10", "--size", "1KiB", "--out", k, k2)
	checkBadInputQuickly(t, r, "lmdbio gen: --out "+k+" and the argument "+k2+" name two outputs")
	checkAbsent(t, k)
	checkAbsent(t, k2)
	if r := lmdbio(t, nil, "gen", "--records", "10", "--size", "1KiB", "--out", k, k+"/"); r.code != 0 {
		t.Errorf("the same output twice:\n%s", r)
	}
}

// TestBadInputToolsInfoNoLabels: info takes --labels none, as digest does.
func TestBadInputToolsInfoNoLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.h5")
	if r := lmdbio(t, nil, "gen", "--format", "hdf5", "--records", "20", "--size", "3x4x4", "--out", path); r.code != 0 {
		t.Fatalf("gen:\n%s", r)
	}
	r := lmdbio(t, nil, "info", "--json", "--labels", "none", path)
	ls := lines(r.stdout)
	var sum hdf5Info
	if r.code != 0 || len(ls) == 0 || json.Unmarshal([]byte(ls[len(ls)-1]), &sum) != nil {
		t.Fatalf("want JSON lines:\n%s", r)
	}
	if sum.Labels != "" || sum.Records != 20 {
		t.Errorf("--labels none: %+v", sum)
	}
	if r := lmdbio(t, nil, "info", "--labels", "none", path); r.code != 0 || !strings.Contains(r.stdout, "labels none") {
		t.Errorf("text report:\n%s", r)
	}
}
