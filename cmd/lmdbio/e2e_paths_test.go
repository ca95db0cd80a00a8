package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EIndexHDF5: lmdbio index on an HDF5 file says such a file needs no
// index, in one line, instead of failing on LMDB's magic number.
func TestE2EIndexHDF5(t *testing.T) {
	file := filepath.Join(t.TempDir(), "d.h5")
	if r := lmdbio(t, nil, "gen", "--format", "hdf5", "--records", "4", "--size", "3x4x4", "--out", file); r.code != 0 {
		t.Fatalf("gen failed:\n%s", r)
	}
	r := lmdbio(t, nil, "index", file)
	checkOneLineError(t, r, 2, "lmdbio index: "+file+": an HDF5 file needs no index")
	if strings.Contains(r.stderr, "magic") {
		t.Errorf("the error speaks of LMDB's magic:\n%s", r)
	}
}

// TestE2ESymlinkLoop: a dataset directory whose data.mdb is a loop of
// symbolic links is said to be one by digest, info and index alike, not
// taken for a directory without data.mdb.
func TestE2ESymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "data.mdb"), filepath.Join(dir, "other")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"digest", "info", "index"} {
		r := lmdbio(t, nil, cmd, dir)
		checkOneLineError(t, r, 2, "lmdbio")
		if !strings.Contains(r.stderr, "too many levels of symbolic links") || strings.Contains(r.stderr, "without data.mdb") {
			t.Errorf("%s: the error does not say the link loops:\n%s", cmd, r)
		}
	}
}
