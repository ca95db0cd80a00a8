//go:build cgo

package lmdbpin

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"golang.org/x/sys/unix"
)

// The writer runs in a process of its own, as a real one would: liblmdb's
// locks belong to processes, and one process must not open a lock file twice.
const writerEnv = "LMDBPIN_TEST_WRITER" // "PATH FLAGS ROUNDS SEED"

func TestMain(m *testing.M) {
	if spec := os.Getenv(writerEnv); spec != "" {
		if err := writer(spec); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const records = 200

// writer opens the database and, rounds times, deletes every record and
// adds it again with a value of another size, each round in one
// transaction: pages freed by one round are reused by the next but one,
// unless a reader holds them.
func writer(spec string) error {
	var path string
	var flags uint
	var rounds, seed int
	if _, err := fmt.Sscan(spec, &path, &flags, &rounds, &seed); err != nil {
		return err
	}
	env, err := lmdb.NewEnv()
	if err != nil {
		return err
	}
	defer env.Close()
	if err := env.SetMapSize(64 << 20); err != nil {
		return err
	}
	if err := env.Open(path, flags, 0o644); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	for range rounds {
		err := env.Update(func(txn *lmdb.Txn) error {
			dbi, err := txn.OpenRoot(0)
			if err != nil {
				return err
			}
			for i := range records {
				key := fmt.Appendf(nil, "record-%04d", i)
				if err := txn.Del(dbi, key, nil); err != nil && !lmdb.IsNotFound(err) {
					return err
				}
				n := rng.IntN(600)
				if i%10 == 0 {
					n = 5000 + rng.IntN(5000) // overflow pages
				}
				v := make([]byte, n)
				for j := range v {
					v[j] = byte(rng.Uint32())
				}
				if err := txn.Put(dbi, key, v, 0); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// write runs the writer process on the database at path.
func write(t *testing.T, path string, flags uint, rounds, seed int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", writerEnv, path, flags, rounds, seed))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writer: %v: %s", err, out)
	}
}

// indexSnap is what the index of a database says, with the bytes it points at.
type indexSnap struct {
	txnID  uint64
	extent [][2]int64
	bytes  [][]byte
}

// indexed walks the data file as the index builder does and keeps a copy
// of every value.
func indexed(t *testing.T, dataPath string) indexSnap {
	t.Helper()
	img, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lmdbfmt.Open(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	s := indexSnap{txnID: f.Meta().TxnID}
	err = f.Walk(func(r lmdbfmt.Record) error {
		s.extent = append(s.extent, [2]int64{r.Offset, r.Length})
		s.bytes = append(s.bytes, bytes.Clone(img[r.Offset:r.Offset+r.Length]))
		return nil
	})
	if err != nil || len(s.extent) != records {
		t.Fatalf("walk: %d records, %v", len(s.extent), err)
	}
	return s
}

// changedValues counts the values whose bytes in the file are no longer
// those of the snapshot.
func changedValues(t *testing.T, dataPath string, s indexSnap) int {
	t.Helper()
	img, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, e := range s.extent {
		if e[0]+e[1] > int64(len(img)) || !bytes.Equal(img[e[0]:e[0]+e[1]], s.bytes[i]) {
			n++
		}
	}
	return n
}

// newDB writes the first version of a database (a directory, or a single
// file with noSubdir) and returns the path of its data file.
func newDB(t *testing.T, noSubdir bool) (dataPath string, flags uint) {
	t.Helper()
	dir := t.TempDir()
	dataPath, open := filepath.Join(dir, "data.mdb"), dir
	if noSubdir {
		flags = lmdb.NoSubdir
		dataPath = filepath.Join(dir, "db.mdb")
		open = dataPath
	}
	write(t, open, flags, 1, 1)
	return dataPath, flags
}

func writerPath(dataPath string, flags uint) string {
	if flags&lmdb.NoSubdir != 0 {
		return dataPath
	}
	return filepath.Dir(dataPath)
}

// TestHeldSnapshotSurvivesWriter: with the lock file usable, a Pin holds a
// read transaction, and a writer that deletes and re-adds every record many
// times never touches the bytes the index points at. Without the Pin, the
// same writer does.
func TestHeldSnapshotSurvivesWriter(t *testing.T) {
	for _, noSubdir := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosubdir=%v", noSubdir), func(t *testing.T) {
			dataPath, flags := newDB(t, noSubdir)
			s := indexed(t, dataPath)
			p, err := Open(dataPath, s.txnID)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Held() {
				t.Fatal("the lock file is usable, but no transaction is held")
			}
			write(t, writerPath(dataPath, flags), flags, 8, 2)
			if n := changedValues(t, dataPath, s); n != 0 {
				t.Errorf("%d of %d indexed values changed under a held snapshot", n, records)
			}
			if err := p.Check(); err != nil {
				t.Errorf("Check with the snapshot held: %v", err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			// The control: the writer does reuse the pages of a snapshot
			// nobody holds.
			s = indexed(t, dataPath)
			write(t, writerPath(dataPath, flags), flags, 8, 3)
			if n := changedValues(t, dataPath, s); n == 0 {
				t.Error("the writer reused no page: the test shows nothing")
			}
		})
	}
}

// TestCheckWithoutLockFile: without a lock file a Pin holds nothing, and
// Check reports the first commit after the indexed one.
func TestCheckWithoutLockFile(t *testing.T) {
	for _, noSubdir := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosubdir=%v", noSubdir), func(t *testing.T) {
			dataPath, flags := newDB(t, noSubdir)
			lock := filepath.Join(filepath.Dir(dataPath), "lock.mdb")
			if noSubdir {
				lock = dataPath + "-lock"
			}
			if err := os.Remove(lock); err != nil {
				t.Fatal(err)
			}
			checkUnheld(t, dataPath, writerPath(dataPath, flags), flags)
		})
	}
}

// TestCheckLockFileNotUsable: a lock file liblmdb cannot use (here a
// directory in its place) is treated as none.
func TestCheckLockFileNotUsable(t *testing.T) {
	dataPath, _ := newDB(t, false)
	lock := filepath.Join(filepath.Dir(dataPath), "lock.mdb")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Open(dataPath, indexed(t, dataPath).txnID)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Held() || p.Check() != nil {
		t.Errorf("Held = %v, Check = %v; want a pin without a transaction and no change", p.Held(), p.Check())
	}
}

// TestCheckReadOnlyFileSystem: on a read-only file system liblmdb opens the
// database without its reader table, silently; the Pin notices and checks
// the meta pages instead. The read-only view is a bind mount in a mount
// namespace of one thread, seen by nobody else.
func TestCheckReadOnlyFileSystem(t *testing.T) {
	dataPath, flags := newDB(t, false)
	dir := filepath.Dir(dataPath)
	s := indexed(t, dataPath)
	type opened struct {
		p   *Pin
		err error
	}
	done := make(chan opened, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with its namespace
		if err := readOnlyBind(dir); err != nil {
			done <- opened{err: err}
			return
		}
		if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
			f.Close()
			done <- opened{err: errors.New("the bind mount is writable")}
			return
		}
		p, err := Open(dataPath, s.txnID)
		done <- opened{p, err}
	}()
	o := <-done
	if o.err != nil && strings.HasPrefix(o.err.Error(), "mount namespace:") {
		t.Skip(o.err)
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	defer o.p.Close()
	if o.p.Held() {
		t.Fatal("a read transaction on a read-only file system holds nothing, but the Pin says held")
	}
	if err := o.p.Check(); err != nil {
		t.Fatal(err)
	}
	write(t, writerPath(dataPath, flags), flags, 1, 4)
	if err := o.p.Check(); !errors.Is(err, ErrChanged) {
		t.Errorf("Check after a commit on a read-only view = %v, want ErrChanged", err)
	}
}

// readOnlyBind makes dir read-only for the calling (locked) thread alone.
func readOnlyBind(dir string) error {
	steps := []func() error{
		func() error { return unix.Unshare(unix.CLONE_NEWNS) },
		func() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") },
		func() error { return unix.Mount(dir, dir, "", unix.MS_BIND, "") },
		func() error { return unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, "") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("mount namespace: %w", err)
		}
	}
	return nil
}

// checkUnheld opens a Pin that cannot hold a transaction and checks that a
// commit makes Check fail with a message naming both transactions.
func checkUnheld(t *testing.T, dataPath, writePath string, flags uint) {
	t.Helper()
	s := indexed(t, dataPath)
	p, err := Open(dataPath, s.txnID)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Held() {
		t.Fatal("no lock file, but a transaction is held")
	}
	for range 3 {
		if err := p.Check(); err != nil {
			t.Fatalf("Check before any commit: %v", err)
		}
	}
	write(t, writePath, flags, 1, 5)
	err = p.Check()
	want := "the database changed during the run (transaction " + strconv.FormatUint(s.txnID+1, 10) +
		", indexed " + strconv.FormatUint(s.txnID, 10) + ")"
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), want) {
		t.Errorf("Check after a commit = %v, want ErrChanged saying %q", err, want)
	}
}

// TestOpenAfterChange: a database that committed since it was indexed is
// refused at Open, with or without a lock file.
func TestOpenAfterChange(t *testing.T) {
	for _, withLock := range []bool{true, false} {
		dataPath, _ := newDB(t, false)
		if !withLock {
			if err := os.Remove(filepath.Join(filepath.Dir(dataPath), "lock.mdb")); err != nil {
				t.Fatal(err)
			}
		}
		s := indexed(t, dataPath)
		p, err := Open(dataPath, s.txnID-1)
		if err == nil {
			p.Close()
		}
		want := fmt.Sprintf("changed since it was indexed (transaction %d, indexed %d)", s.txnID, s.txnID-1)
		if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), want) {
			t.Errorf("lock file %v: Open = %v, want ErrChanged saying %q", withLock, err, want)
		}
	}
}

// TestPinsShareOneEnvironment: Pins of one database in one process share
// one environment, closed with the last of them.
func TestPinsShareOneEnvironment(t *testing.T) {
	dataPath, _ := newDB(t, false)
	s := indexed(t, dataPath)
	a, err := Open(dataPath, s.txnID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(filepath.Join(filepath.Dir(dataPath), ".", "data.mdb"), s.txnID)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Held() || !b.Held() || a.snap.env != b.snap.env || a.snap.env.refs != 2 {
		t.Fatalf("two pins: held %v %v, same environment %v", a.Held(), b.Held(), a.snap.env == b.snap.env)
	}
	a.Close()
	a.Close()
	if envs.m[b.snap.env.key] == nil {
		t.Fatal("closing one pin closed the shared environment")
	}
	key := b.snap.env.key
	b.Close()
	if envs.m[key] != nil {
		t.Fatal("the environment outlived its last pin")
	}
}

func TestOpenMissing(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "data.mdb"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want ErrNotExist", err)
	}
}
