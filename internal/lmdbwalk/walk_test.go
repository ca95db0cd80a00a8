//go:build cgo

package lmdbwalk

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// writeDB writes n records with lmdb-go into a single-file database and
// returns its path and the records in key order. Every seventh value is
// large enough for overflow pages.
func writeDB(t *testing.T, n int) (string, [][2][]byte) {
	t.Helper()
	return writeSized(t, n, func(i int, rng *rand.Rand) int {
		if i%7 == 0 {
			return 5000 + rng.IntN(9000)
		}
		return rng.IntN(300)
	})
}

// writeSized is writeDB with record i's value size given by size.
func writeSized(t *testing.T, n int, size func(i int, rng *rand.Rand) int) (string, [][2][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.mdb")
	env, err := lmdb.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if err := env.SetMapSize(64 << 20); err != nil {
		t.Fatal(err)
	}
	if err := env.Open(path, lmdb.NoSubdir, 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var recs [][2][]byte
	err = env.Update(func(txn *lmdb.Txn) error {
		dbi, err := txn.OpenRoot(0)
		if err != nil {
			return err
		}
		for i := range n {
			v := make([]byte, size(i, rng))
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			k := fmt.Appendf(nil, "key-%05d", i)
			recs = append(recs, [2][]byte{k, v})
			if err := txn.Put(dbi, k, v, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return path, recs
}

func TestSeekAndFileOffset(t *testing.T) {
	path, recs := writeDB(t, 300)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Forward with skips, backwards (a new epoch), and the same record twice.
	for _, i := range []int{0, 1, 5, 6, 7, 150, 299, 3, 3, 298, 0, 14} {
		k, v, err := w.Seek(i)
		if err != nil {
			t.Fatalf("Seek(%d): %v", i, err)
		}
		if !bytes.Equal(k, recs[i][0]) || !bytes.Equal(v, recs[i][1]) {
			t.Fatalf("Seek(%d) = key %q, %d bytes; want key %q, %d bytes", i, k, len(v), recs[i][0], len(recs[i][1]))
		}
		for _, b := range [][]byte{k, v} {
			if len(b) == 0 {
				continue
			}
			off := w.FileOffset(b)
			if off < 0 || off+int64(len(b)) > int64(len(file)) || !bytes.Equal(file[off:off+int64(len(b))], b) {
				t.Fatalf("record %d: FileOffset = %d, not where its %d bytes are", i, off, len(b))
			}
		}
	}
	if off := w.FileOffset([]byte("not in the map")); off != -1 {
		t.Errorf("FileOffset of Go memory = %d, want -1", off)
	}
	if off := w.FileOffset(nil); off != -1 {
		t.Errorf("FileOffset(nil) = %d, want -1", off)
	}
	if _, _, err := w.Seek(len(recs)); !errors.Is(err, lmdb.NotFound) {
		t.Errorf("Seek past the end: %v, want MDB_NOTFOUND", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestSeekReadsNoValueItSkips: walking over records reads the leaf pages
// that list them and none of their values, as liblmdb's cursor does for a
// C caller (lmdb-go's Cursor.Get reads every value's first byte; see
// step). Counted in page faults: every value here has pages of its own.
func TestSeekReadsNoValueItSkips(t *testing.T) {
	const records = 200
	path, recs := writeSized(t, records, func(int, *rand.Rand) int { return 128 << 10 })
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, _, err := w.Seek(0); err != nil {
		t.Fatal(err)
	}
	before := faults(t)
	k, _, err := w.Seek(records - 1)
	if err != nil {
		t.Fatal(err)
	}
	got := faults(t) - before
	if !bytes.Equal(k, recs[records-1][0]) {
		t.Fatalf("Seek(%d) landed on key %q", records-1, k)
	}
	if got > records/20 {
		t.Errorf("stepping over %d values of 128 KiB took %d page faults: the walk reads the values it skips", records-2, got)
	}
}

// faults returns the page faults this process has taken.
func faults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt + ru.Majflt
}

func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such.mdb")
	if _, err := Open(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want fs.ErrNotExist", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.mdb")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not lmdb "), 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(junk)
	if !IsCorrupt(err) || failure.KindOf(err) != failure.Input {
		t.Errorf("Open(junk) = %v (kind %v), want an error IsCorrupt accepts, of kind input", err, failure.KindOf(err))
	}
	if IsCorrupt(fs.ErrNotExist) || IsCorrupt(nil) {
		t.Error("IsCorrupt accepts errors that are not liblmdb's corruption codes")
	}
}

// TestSeekOnAPageThatFailsLiblmdbsChecks: a leaf page that a writer
// without the lock file reused under the walk fails liblmdb's own check,
// which would abort the process; Seek returns an error wrapping
// lmdb.Corrupted instead, and the walker still walks once the page is
// whole again.
func TestSeekOnAPageThatFailsLiblmdbsChecks(t *testing.T) {
	path, recs := writeDB(t, 300)
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	k, _, err := w.Seek(0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The flags of the leaf page that lists record 0, after the page
	// number and 2 bytes of padding in its header: a branch page now.
	page := int64(os.Getpagesize())
	flagsAt := w.FileOffset(k)/page*page + 10
	leaf := make([]byte, 2)
	if _, err := f.ReadAt(leaf, flagsAt); err != nil {
		t.Fatal(err)
	}
	if leaf[0] != 0x02 || leaf[1] != 0 { // P_LEAF
		t.Fatalf("the page of record 0 has flags %x, not a leaf's", leaf)
	}
	if _, err := f.WriteAt([]byte{0x01, 0}, flagsAt); err != nil { // P_BRANCH
		t.Fatal(err)
	}
	_, _, err = w.Seek(1)
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "IS_LEAF") || failure.KindOf(err) != failure.Input {
		t.Fatalf("Seek over a leaf page turned branch: %v, want liblmdb's failed check as MDB_CORRUPTED", err)
	}
	if _, err := f.WriteAt(leaf, flagsAt); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 299} {
		if k, _, err := w.Seek(i); err != nil || !bytes.Equal(k, recs[i][0]) {
			t.Fatalf("Seek(%d) after the page was restored: key %q, %v; want %q", i, k, err, recs[i][0])
		}
	}
}
