package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"golang.org/x/sys/unix"
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

// TestLoadDistrustsSidecars: what sits where the sidecar belongs is read
// only if it is a regular file of a size an index of the database can have,
// and used only if records are where it says. Load neither blocks on a
// FIFO, nor reads a device without end, nor trusts a sidecar whose checksum
// holds but whose offsets are wrong: it builds the index anew.
func TestLoadDistrustsSidecars(t *testing.T) {
	lmdbtest.Require(t)
	cases := []struct {
		name  string
		plant func(t *testing.T, side string, x *Index)
		why   string // what from must say about the planted sidecar
	}{
		{"fifo", func(t *testing.T, side string, _ *Index) {
			if err := unix.Mkfifo(side, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"symlink to /dev/zero", func(t *testing.T, side string, _ *Index) {
			if err := os.Symlink("/dev/zero", side); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"larger than an index can be", func(t *testing.T, side string, x *Index) {
			f, err := os.Create(side)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(3*x.Identity().Size + 1<<20); err != nil {
				t.Fatal(err)
			}
		}, " (ignored corrupt sidecar)"},
		{"offsets shifted, checksum valid", func(t *testing.T, side string, x *Index) {
			b, err := shifted(x, int64(x.psize)).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(side, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, " (ignored corrupt sidecar)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LMDBIO_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
			dir, dataPath, oracle := writeDB(t, mixedSpec)
			x, err := Build(dataPath)
			if err != nil {
				t.Fatal(err)
			}
			side := filepath.Join(dir, SidecarName)
			tc.plant(t, side, x)
			type result struct {
				x    *Index
				from string
				err  error
			}
			done := make(chan result, 1)
			go func() {
				x, from, err := Load(dir, LoadOptions{})
				done <- result{x, from, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Load did not return")
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if want := "built, saved to sidecar " + side + tc.why; r.from != want {
				t.Errorf("from = %q, want %q", r.from, want)
			}
			checkAgainstOracle(t, r.x, dataPath, oracle)
			if st, err := os.Lstat(side); err != nil || !st.Mode().IsRegular() {
				t.Errorf("the planted sidecar was not replaced by an index: %v, %v", st, err)
			}
		})
	}
}
