package index

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

func TestBuildMatchesLiblmdb(t *testing.T) {
	tests := []struct {
		name string
		spec lmdbtest.Spec
	}{
		{"mixed", mixedSpec},
		{"empty", lmdbtest.Spec{Txns: []lmdbtest.Txn{{}}}},
		{"single-file", lmdbtest.Spec{NoSubdir: true, Txns: mixedSpec.Txns[:2]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, dataPath, oracle := writeDB(t, tc.spec)
			x, err := Build(dataPath)
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstOracle(t, x, dataPath, oracle)
			id, err := Identify(dataPath)
			if err != nil {
				t.Fatal(err)
			}
			if id != x.Identity() || id.TxnID == 0 && len(oracle) > 0 {
				t.Errorf("Identify = %+v, index has %+v", id, x.Identity())
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	notLMDB := filepath.Join(dir, "text")
	if err := os.WriteFile(notLMDB, []byte("just some text, long enough to hold a meta page? no: it is not LMDB at all, this one, no matter how long it gets................................................................"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(notLMDB); !errors.Is(err, lmdbfmt.ErrNotLMDB) {
		t.Errorf("Build(text) = %v, want ErrNotLMDB", err)
	}
	if _, err := Build(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Build(missing) = %v, want ErrNotExist", err)
	}
	lmdbtest.Require(t)
	_, dataPath, _ := writeDB(t, lmdbtest.Spec{Named: true, Txns: []lmdbtest.Txn{{Puts: []lmdbtest.KV{{Key: []byte("k"), Value: []byte("v")}}}}})
	if _, err := Build(dataPath); !errors.Is(err, lmdbfmt.ErrUnsupported) {
		t.Errorf("Build(named sub-database) = %v, want ErrUnsupported", err)
	}
}

// BenchmarkIndexBuild builds the index of a database from the page cache;
// bytes/s counts the database file size.
func BenchmarkIndexBuild(b *testing.B) {
	_, dataPath, _ := writeDB(b, mixedSpec)
	st, err := os.Stat(dataPath)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(dataPath); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuildHugeClaims: the meta's record count sizes nothing before the
// walk confirms it. A 1 TiB sparse file claiming 10^12 records is corrupt,
// found with little memory (it once died with the runtime out of memory).
func TestBuildHugeClaims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.mdb")
	lmdbtest.Claim(t, path, 1<<40, lmdbtest.Claims{PageSize: 4096, Entries: 1e12, Depth: 1, Root: 2})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, lmdbfmt.ErrCorrupt) {
		t.Errorf("Build = %v, want ErrCorrupt", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("Build of a one-record file allocated %d bytes", n)
	}
}
