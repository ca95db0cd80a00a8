package fingerprint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/pkg/index"
)

// records is a database of n records, keys made by key and every value
// 100 bytes of fill (a big one every 7th, stored in overflow pages).
func records(n int, key string, fill byte) lmdbtest.Spec {
	var puts []lmdbtest.KV
	for i := range n {
		size := 100
		if i%7 == 0 {
			size = 9000
		}
		puts = append(puts, lmdbtest.KV{Key: fmt.Appendf(nil, key, i), Value: bytes.Repeat([]byte{fill + byte(i)}, size)})
	}
	return lmdbtest.Spec{Txns: []lmdbtest.Txn{{Puts: puts}}}
}

func fingerprintAt(t *testing.T, dir string) string {
	t.Helper()
	x, err := index.Build(filepath.Join(dir, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := Of(x.Source(filepath.Join(dir, "data.mdb")))
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// TestOf: the fingerprint follows the records, not the path: a copy at
// another path keeps it; another dataset of the same shape, and the same
// path rewritten with other values of the same lengths, do not.
func TestOf(t *testing.T) {
	lmdbtest.Require(t)
	root := t.TempDir()
	orig := filepath.Join(root, "orig")
	lmdbtest.Write(t, orig, records(60, "k%04d", 1))
	want := fingerprintAt(t, orig)
	if !strings.HasPrefix(want, "lmdb:sha256:") || len(want) != len("lmdb:sha256:")+32 {
		t.Fatalf("fingerprint %q, want lmdb:sha256: and 32 hex digits", want)
	}
	if again := fingerprintAt(t, orig); again != want {
		t.Fatalf("twice on one file: %s, then %s", want, again)
	}

	moved := filepath.Join(root, "elsewhere", "copy")
	if err := os.MkdirAll(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(orig, "data.mdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, "data.mdb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := fingerprintAt(t, moved); got != want {
		t.Errorf("the same bytes at another path: %s, want %s", got, want)
	}

	other := filepath.Join(root, "other")
	lmdbtest.Write(t, other, records(60, "x%04d", 1))
	if got := fingerprintAt(t, other); got == want {
		t.Errorf("another dataset of the same shape has the same fingerprint %s", got)
	}

	if err := os.RemoveAll(orig); err != nil {
		t.Fatal(err)
	}
	lmdbtest.Write(t, orig, records(60, "k%04d", 2))
	if got := fingerprintAt(t, orig); got == want {
		t.Errorf("the same path rewritten with other values of the same lengths has the same fingerprint %s", got)
	}
}
