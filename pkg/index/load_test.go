package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/lmdbfmt/lmdbtest"
)

// step is one Load and what it must report.
type step struct {
	do   func(t *testing.T) // optional change before the Load
	opts LoadOptions
	from string // expected prefix of from
}

func TestLoad(t *testing.T) {
	lmdbtest.Require(t)
	more := lmdbtest.Spec{Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{{Key: []byte("zzz-new"), Value: []byte("new value")}}}}}

	t.Run("directory database", func(t *testing.T) {
		t.Setenv("LMDBIO_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
		dir, dataPath, _ := writeDB(t, mixedSpec)
		side := filepath.Join(dir, SidecarName)
		var oracle []lmdbtest.Entry
		runSteps(t, dir, dataPath, &oracle, []step{
			{from: "built, saved to sidecar " + side},
			{from: "sidecar " + side},
			// A new transaction makes the sidecar stale.
			{do: func(t *testing.T) { _, oracle = lmdbtest.Write(t, dir, more) }, from: "built, saved to sidecar " + side + " (ignored stale sidecar)"},
			{from: "sidecar " + side},
			// A damaged sidecar is rebuilt.
			{do: func(t *testing.T) { damage(t, side) }, from: "built, saved to sidecar " + side + " (ignored corrupt sidecar)"},
			{from: "sidecar " + side},
			{opts: LoadOptions{Rebuild: true}, from: "built, saved to sidecar " + side},
		})
	})

	t.Run("read-only beside goes to cache", func(t *testing.T) {
		cache := filepath.Join(t.TempDir(), "cache")
		t.Setenv("LMDBIO_CACHE_DIR", cache)
		dir, dataPath, _ := writeDB(t, mixedSpec)
		ro := LoadOptions{NoWriteBeside: true}
		cp, err := CachePath(dataPath, ro)
		if err != nil || !strings.HasPrefix(cp, cache+"/") {
			t.Fatalf("CachePath = %q, %v; want it under %s", cp, err, cache)
		}
		var oracle []lmdbtest.Entry
		runSteps(t, dir, dataPath, &oracle, []step{
			{opts: ro, from: "built, saved to cache " + cp},
			{opts: ro, from: "cache " + cp},
			{do: func(t *testing.T) { _, oracle = lmdbtest.Write(t, dir, more) }, opts: ro, from: "built, saved to cache " + cp + " (ignored stale cache)"},
			{opts: ro, from: "cache " + cp},
		})
		if _, err := os.Stat(filepath.Join(dir, SidecarName)); !os.IsNotExist(err) {
			t.Errorf("a sidecar was written beside a read-only database: %v", err)
		}
	})

	t.Run("stale sidecar beside read-only database", func(t *testing.T) {
		t.Setenv("LMDBIO_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
		dir, dataPath, _ := writeDB(t, mixedSpec)
		side := filepath.Join(dir, SidecarName)
		var oracle []lmdbtest.Entry
		ro := LoadOptions{NoWriteBeside: true}
		runSteps(t, dir, dataPath, &oracle, []step{
			{from: "built, saved to sidecar " + side},
			{do: func(t *testing.T) { _, oracle = lmdbtest.Write(t, dir, more) }, opts: ro, from: "built, saved to cache "},
			// The stale sidecar stays untouched and is never trusted.
			{opts: ro, from: "cache "},
		})
	})

	t.Run("failed write beside falls back to cache", func(t *testing.T) {
		t.Setenv("LMDBIO_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
		dir, dataPath, _ := writeDB(t, mixedSpec)
		// A directory where the sidecar belongs makes the rename fail, as a
		// read-only file system would.
		if err := os.Mkdir(filepath.Join(dir, SidecarName), 0o755); err != nil {
			t.Fatal(err)
		}
		var oracle []lmdbtest.Entry
		runSteps(t, dir, dataPath, &oracle, []step{
			{from: "built, saved to cache "},
			{from: "cache "},
		})
		left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
		if len(left) > 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
	})

	t.Run("nothing writable keeps it in memory", func(t *testing.T) {
		dir, dataPath, _ := writeDB(t, mixedSpec)
		blocker := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(blocker, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// A cache directory under a regular file cannot be created.
		opts := LoadOptions{NoWriteBeside: true, CacheDir: filepath.Join(blocker, "cache")}
		var oracle []lmdbtest.Entry
		runSteps(t, dir, dataPath, &oracle, []step{
			{opts: opts, from: "built, kept in memory"},
			{opts: opts, from: "built, kept in memory"},
		})
	})

	t.Run("single-file database", func(t *testing.T) {
		t.Setenv("LMDBIO_CACHE_DIR", "")
		t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "xdg"))
		path := filepath.Join(t.TempDir(), "one.mdb")
		_, oracle := lmdbtest.Write(t, path, lmdbtest.Spec{NoSubdir: true, Txns: mixedSpec.Txns[:1]})
		side := path + ".lmdbio.idx"
		runSteps(t, path, path, &oracle, []step{
			{from: "built, saved to sidecar " + side},
			{from: "sidecar " + side},
			{opts: LoadOptions{NoWriteBeside: true, Rebuild: true}, from: "built, saved to cache " + filepath.Join(os.Getenv("XDG_CACHE_HOME"), "lmdbio") + "/one.mdb-"},
		})
	})
}

// runSteps loads path after each step's change and checks the result against
// liblmdb's view of the database (taken afresh when oracle is nil).
func runSteps(t *testing.T, path, dataPath string, oracle *[]lmdbtest.Entry, steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.do != nil {
			s.do(t)
		}
		if *oracle == nil {
			*oracle = lmdbtest.Read(t, path, path == dataPath)
		}
		x, from, err := Load(path, s.opts)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !strings.HasPrefix(from, s.from) {
			t.Fatalf("step %d: from = %q, want prefix %q", i, from, s.from)
		}
		t.Logf("step %d: %s", i, from)
		checkAgainstOracle(t, x, dataPath, *oracle)
	}
}

// damage flips a byte in the middle of a file.
func damage(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
