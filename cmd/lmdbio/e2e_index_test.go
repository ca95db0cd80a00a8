package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// checkDigest runs lmdbio digest args and compares its line with want.
func checkDigest(t *testing.T, r result, want digestLine) {
	t.Helper()
	if got := strings.TrimSpace(r.stdout); r.code != 0 || got != want.String() {
		t.Errorf("got %q, want %q:\n%s", got, want, r)
	}
	checkNoPanic(t, r)
}

// TestE2EIndexSidecarBad: a corrupt or foreign index beside the database
// is rebuilt, never an error and never believed.
func TestE2EIndexSidecarBad(t *testing.T) {
	scattered, want := scatteredDB(t)
	other, _ := genDB(t, "--records", "50", "--size", "1KiB")
	if r := lmdbio(t, nil, "index", other); r.code != 0 {
		t.Fatalf("index:\n%s", r)
	}
	foreign, err := os.ReadFile(filepath.Join(other, "lmdbio.idx"))
	if err != nil {
		t.Fatalf("lmdbio index wrote no sidecar: %v", err)
	}
	if r := lmdbio(t, nil, "index", scattered); r.code != 0 {
		t.Fatalf("index:\n%s", r)
	}
	good, err := os.ReadFile(filepath.Join(scattered, "lmdbio.idx"))
	if err != nil {
		t.Fatalf("lmdbio index wrote no sidecar: %v", err)
	}
	cases := []struct {
		name    string
		sidecar []byte
	}{
		{"garbage", []byte(strings.Repeat("garbage!", 1000))},
		{"empty", nil},
		{"truncated", good[:len(good)/2]},
		{"flipped byte", func() []byte { b := append([]byte(nil), good...); b[len(b)/2] ^= 0x01; return b }()},
		{"another database's", foreign},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "db")
			copyDir(t, scattered, dir)
			if err := os.WriteFile(filepath.Join(dir, "lmdbio.idx"), c.sidecar, 0o644); err != nil {
				t.Fatal(err)
			}
			cache := []string{"LMDBIO_CACHE_DIR=" + t.TempDir()}
			checkDigest(t, lmdbio(t, cache, "digest", dir), want)
			checkDigest(t, lmdbio(t, cache, "digest", dir), want) // the rewritten sidecar is good
		})
	}
}

// TestE2EIndexStale: after liblmdb changes the database, the saved index is
// stale; digest rebuilds it and prints the new database's digest.
func TestE2EIndexStale(t *testing.T) {
	dir, before := scatteredDB(t)
	cache := []string{"LMDBIO_CACHE_DIR=" + t.TempDir()}
	checkDigest(t, lmdbio(t, cache, "digest", dir), before)
	if !fileExists(filepath.Join(dir, "lmdbio.idx")) {
		t.Fatalf("digest kept no index beside the writable database")
	}
	// Change the database with liblmdb: new records, a rewritten one with a
	// value of another size, a deleted one.
	oracle := lmdbtest.Read(t, dir, false)
	spec := lmdbtest.Spec{Txns: []lmdbtest.Txn{{
		Puts: []lmdbtest.KV{
			{Key: []byte("\x00first"), Value: []byte("new")},
			{Key: []byte("\xffbig"), Value: make([]byte, 9000)},
			{Key: oracle[10].Key, Value: []byte("rewritten")},
		},
		Dels: [][]byte{oracle[20].Key},
	}}}
	lmdbtest.Write(t, dir, spec)
	after, _ := liblmdbDigest(t, dir, false)
	if after == before {
		t.Fatal("the change did not change liblmdb's digest")
	}
	checkDigest(t, lmdbio(t, cache, "digest", dir), after)
	checkDigest(t, lmdbio(t, cache, "digest", "--mode", "lmm+dio+prov", dir), after)
	if mpirunPath != "" {
		lmdbtest.Write(t, dir, lmdbtest.Spec{Txns: []lmdbtest.Txn{{Dels: [][]byte{oracle[30].Key}}}})
		again, _ := liblmdbDigest(t, dir, false)
		checkDigest(t, mpirun(t, 4, append(cache, "LMDBIO_RANKS_PER_NODE=2"), "digest", dir), again)
	}
}

// TestE2EReadOnlyDataset: lmdbio reads a dataset it cannot write to, never
// creates lock.mdb, and keeps its index in the cache directory.
func TestE2EReadOnlyDataset(t *testing.T) {
	src, want := scatteredDB(t)
	for _, mode := range []string{"default", "lmdb", "lmm"} {
		checkDigest(t, lmdbio(t, nil, "digest", "--mode", mode, src), want)
	}
	if fileExists(filepath.Join(src, "lock.mdb")) {
		t.Errorf("digest created lock.mdb in the dataset directory")
	}
	_ = os.Remove(filepath.Join(src, "lmdbio.idx"))

	mnt := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", src, mnt).CombinedOutput(); err != nil {
		t.Skipf("no bind mounts here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot make a bind mount read-only: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(mnt, "probe"), nil, 0o644); err == nil {
		t.Fatalf("the read-only mount is writable")
	}
	cacheDir := t.TempDir()
	cache := []string{"LMDBIO_CACHE_DIR=" + cacheDir}
	for _, mode := range []string{"default", "lmdb", "lmm"} {
		checkDigest(t, lmdbio(t, cache, "digest", "--mode", mode, mnt), want)
	}
	if mpirunPath != "" {
		checkDigest(t, mpirun(t, 4, append(cache, "LMDBIO_RANKS_PER_NODE=2"), "digest", mnt), want)
	}
	idx, _ := filepath.Glob(filepath.Join(cacheDir, "*"))
	if len(idx) == 0 {
		t.Errorf("no index kept in LMDBIO_CACHE_DIR for a read-only dataset")
	}
	r := lmdbio(t, cache, "index", mnt)
	if r.code != 0 || !strings.Contains(r.stdout, cacheDir) {
		t.Errorf("index of a read-only dataset should come from the cache dir %s:\n%s", cacheDir, r)
	}
	if ents, _ := os.ReadDir(src); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("dataset directory holds %v, want only data.mdb", names)
	}
}
