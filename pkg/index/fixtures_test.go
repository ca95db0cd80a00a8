package index

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// mixedSpec has small and overflow values written over many transactions.
var mixedSpec = lmdbtest.Generate(lmdbtest.Gen{Seed: 11, Records: 2000, KeyLen: 20, SmallMax: 400,
	BigEvery: 50, BigMin: 10 << 10, BigMax: 100 << 10, Txns: 10, Churn: 30})

// writeDB writes spec into a new directory database under t's temp dir.
func writeDB(t testing.TB, spec lmdbtest.Spec) (dir, dataPath string, oracle []lmdbtest.Entry) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "db")
	dataPath, oracle = lmdbtest.Write(t, dir, spec)
	return dir, dataPath, oracle
}

// checkAgainstOracle compares x with liblmdb's cursor over the same file.
func checkAgainstOracle(t *testing.T, x *Index, dataPath string, oracle []lmdbtest.Entry) {
	t.Helper()
	img, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(oracle) {
		t.Fatalf("index has %d records, liblmdb %d", x.Len(), len(oracle))
	}
	if x.Identity().Size != int64(len(img)) {
		t.Errorf("identity size %d, file %d", x.Identity().Size, len(img))
	}
	var total int64
	for i, e := range oracle {
		if string(x.Key(i)) != string(e.Key) {
			t.Fatalf("record %d key %x, want %x", i, x.Key(i), e.Key)
		}
		off, n := x.Extent(i)
		if n != int64(e.Len) || off < 0 || off+n > int64(len(img)) {
			t.Fatalf("record %d extent %d+%d, want length %d in %d bytes", i, off, n, e.Len, len(img))
		}
		if sha256.Sum256(img[off:off+n]) != e.SHA256 {
			t.Fatalf("record %d value bytes differ from liblmdb's", i)
		}
		total += n
	}
	if x.TotalBytes() != total {
		t.Errorf("TotalBytes %d, want %d", x.TotalBytes(), total)
	}
}
