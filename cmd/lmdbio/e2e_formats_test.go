package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/lmdbfmt/lmdbtest"
	"golang.org/x/sys/unix"
)

// checkBadInputQuickly asserts that a command refused its input as bad
// input (status 2, one line starting prefix, no report) within seconds.
func checkBadInputQuickly(t *testing.T, r result, prefix string) {
	t.Helper()
	checkOneLineError(t, r, 2, prefix)
	if r.stdout != "" {
		t.Errorf("printed a report for bad input:\n%s", r)
	}
	if r.timedOut || r.elapsed > 20*time.Second {
		t.Errorf("took %v (timed out: %v), want well under 20 s:\n%s", r.elapsed, r.timedOut, r)
	}
}

// TestE2ENotAFile: a FIFO, a directory or a device where the data file
// should be is bad input for digest, index and info: status 2 and one line,
// never a hang on the FIFO.
func TestE2ENotAFile(t *testing.T) {
	mkfifo := func(t *testing.T, p string) {
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		make func(t *testing.T) string
	}{
		{"fifo", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "fifo.mdb")
			mkfifo(t, p)
			return p
		}},
		{"fifo as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			mkfifo(t, filepath.Join(dir, "data.mdb"))
			return dir
		}},
		{"directory as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "data.mdb"), 0o755); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"/dev/zero", func(*testing.T) string { return "/dev/zero" }},
		{"/dev/null", func(*testing.T) string { return "/dev/null" }},
		{"symlink to /dev/zero as data.mdb", func(t *testing.T) string {
			dir := t.TempDir()
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "data.mdb")); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.make(t)
			for _, cmd := range []string{"digest", "index", "info"} {
				r := lmdbio(t, nil, cmd, path)
				checkBadInputQuickly(t, r, "lmdbio: "+path+": ")
			}
		})
	}
}

// TestE2EHugeClaims: a 1 TiB sparse file whose meta pages claim 10^12
// records is a corrupt dataset (status 2, one line), not a runtime out of
// memory.
func TestE2EHugeClaims(t *testing.T) {
	dir := t.TempDir()
	lmdbtest.Claim(t, filepath.Join(dir, "data.mdb"), 1<<40, lmdbtest.Claims{PageSize: 4096, Entries: 1e12, Depth: 1, Root: 2})
	for _, args := range [][]string{{"digest"}, {"digest", "--mode", "lmdb"}, {"index"}, {"info"}} {
		r := lmdbio(t, nil, append(args, dir)...)
		checkBadInputQuickly(t, r, "lmdbio: "+dir+": ")
	}
}
