package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
)

// digestLine is what lmdbio digest prints for one epoch.
type digestLine struct {
	records, bytes int64
	digest         uint64
}

func (d digestLine) String() string {
	return fmt.Sprintf("records=%d bytes=%d digest=%016x", d.records, d.bytes, d.digest)
}

// liblmdbStat is liblmdb's statistics of the main database (MDB_stat).
type liblmdbStat struct {
	PageSize, Depth                                int
	BranchPages, LeafPages, OverflowPages, Entries int64
}

// liblmdbDigest computes the digest of the main database at path from
// liblmdb's own cursor, independently of everything lmdbio reads with. It
// opens the environment read-only without a lock file. It also returns
// liblmdb's statistics, so a test can check the shape of its fixture.
func liblmdbDigest(t *testing.T, path string, noSubdir bool) (digestLine, liblmdbStat) {
	t.Helper()
	flags := uint(lmdb.Readonly | lmdb.NoLock)
	if noSubdir {
		flags |= lmdb.NoSubdir
	}
	env, err := lmdb.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if err := env.Open(path, flags, 0); err != nil {
		t.Fatalf("liblmdb: open %s: %v", path, err)
	}
	s, err := env.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st := liblmdbStat{PageSize: int(s.PSize), Depth: int(s.Depth), BranchPages: int64(s.BranchPages),
		LeafPages: int64(s.LeafPages), OverflowPages: int64(s.OverflowPages), Entries: int64(s.Entries)}
	var d digestLine
	err = env.View(func(txn *lmdb.Txn) error {
		txn.RawRead = true
		dbi, err := txn.OpenRoot(0)
		if err != nil {
			return err
		}
		c, err := txn.OpenCursor(dbi)
		if err != nil {
			return err
		}
		defer c.Close()
		k, v, err := c.Get(nil, nil, lmdb.First)
		for ; err == nil; k, v, err = c.Get(nil, nil, lmdb.Next) {
			h := sha256.New()
			h.Write(k)
			h.Write(v)
			d.digest += binary.LittleEndian.Uint64(h.Sum(nil))
			d.records++
			d.bytes += int64(len(v))
		}
		if lmdb.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatalf("liblmdb cursor: %v", err)
	}
	if d.records != st.Entries {
		t.Fatalf("liblmdb cursor read %d records, its stat says %d", d.records, st.Entries)
	}
	return d, st
}

// scatteredSpec is an LMDB written by liblmdb the hard way: random keys in
// random order over many transactions with deletes and rewrites, tiny inline
// values and values big enough for overflow pages, and long keys so the
// tree is at least three levels deep.
var scatteredSpec = lmdbtest.Gen{
	Seed: 20240611, Records: 1500, KeyLen: 200, SmallMax: 40,
	BigEvery: 9, BigMin: 4100, BigMax: 14000, Txns: 25, Churn: 30,
}

var fixtures struct {
	sync.Mutex
	scattered string // master copy, written once per test binary
	oracle    digestLine
}

// scatteredDB copies the scattered liblmdb fixture into a new directory of
// the test and returns it with its digest as liblmdb reads it.
func scatteredDB(t *testing.T) (string, digestLine) {
	t.Helper()
	lmdbtest.Require(t)
	fixtures.Lock()
	defer fixtures.Unlock()
	if fixtures.scattered == "" {
		dir := filepath.Join(filepath.Dir(lmdbioBin), "scattered")
		_ = os.RemoveAll(dir)
		_, entries := lmdbtest.Write(t, dir, onePutPerKey(lmdbtest.Generate(scatteredSpec)))
		_ = os.Remove(filepath.Join(dir, "lock.mdb"))
		d, st := liblmdbDigest(t, dir, false)
		if st.Depth < 3 || st.OverflowPages == 0 || st.Entries < 1000 {
			t.Fatalf("fixture is not what the tests need: %+v", st)
		}
		// The Python side of lmdbtest read the same records with liblmdb.
		var n, bytes int64
		for _, e := range entries {
			n++
			bytes += int64(e.Len)
		}
		if n != d.records || bytes != d.bytes {
			t.Fatalf("two liblmdb readers disagree: %d records %d bytes vs %v", n, bytes, d)
		}
		fixtures.scattered, fixtures.oracle = dir, d
	}
	dst := filepath.Join(t.TempDir(), "db")
	copyDir(t, fixtures.scattered, dst)
	return dst, fixtures.oracle
}

// onePutPerKey keeps, in every transaction, only the last put of each key.
// Overwriting a big value with a smaller one in the same transaction makes
// liblmdb reuse the overflow pages in place (their count then exceeds what
// the value needs); TestE2EDigestOverflowReuse covers that case on its own,
// so the shared fixture does not depend on it.
func onePutPerKey(spec lmdbtest.Spec) lmdbtest.Spec {
	for i, txn := range spec.Txns {
		last := map[string]int{}
		for j, kv := range txn.Puts {
			last[string(kv.Key)] = j
		}
		var puts []lmdbtest.KV
		for j, kv := range txn.Puts {
			if last[string(kv.Key)] == j {
				puts = append(puts, kv)
			}
		}
		spec.Txns[i].Puts = puts
	}
	return spec
}

// genDB writes a dataset with lmdbio gen and returns its path and digest.
func genDB(t *testing.T, args ...string) (string, digestLine) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gen")
	r := lmdbio(t, nil, append([]string{"gen", "--out", dir}, args...)...)
	if r.code != 0 {
		t.Fatalf("gen failed:\n%s", r)
	}
	d, _ := liblmdbDigest(t, dir, false)
	return dir, d
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
