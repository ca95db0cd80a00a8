//go:build cgo

package lmdb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// openTemp opens a fresh environment in a temporary directory.
func openTemp(t *testing.T, flags Flags, mapSize int64) (*Env, string) {
	t.Helper()
	dir := t.TempDir()
	env, err := Open(dir, flags, mapSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env, dir
}

// randomRecords returns n distinct keys with values of random sizes up to
// maxVal, some of them empty.
func randomRecords(rng *rand.Rand, n, maxVal int) map[string][]byte {
	recs := make(map[string][]byte, n)
	for len(recs) < n {
		k := make([]byte, 1+rng.IntN(40))
		for i := range k {
			k[i] = byte(rng.Uint32())
		}
		v := make([]byte, rng.IntN(maxVal+1))
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		recs[string(k)] = v
	}
	return recs
}

// putAll inserts recs in random order, txnSize records per transaction.
func putAll(t *testing.T, env *Env, rng *rand.Rand, recs map[string][]byte, txnSize int) {
	t.Helper()
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for len(keys) > 0 {
		n := min(txnSize, len(keys))
		batch := keys[:n]
		keys = keys[n:]
		err := env.Update(func(txn *Txn) error {
			for _, k := range batch {
				if err := txn.Put([]byte(k), recs[k]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkAll verifies recs with Get and with a full cursor walk in key order.
func checkAll(t *testing.T, env *Env, recs map[string][]byte) {
	t.Helper()
	if err := verify(env, recs); err != nil {
		t.Fatal(err)
	}
}

// verify is checkAll for any goroutine.
func verify(env *Env, recs map[string][]byte) error {
	want := make([]string, 0, len(recs))
	for k := range recs {
		want = append(want, k)
	}
	sort.Strings(want)
	return env.View(func(txn *Txn) error {
		for _, k := range want {
			v, err := txn.Get([]byte(k))
			if err != nil {
				return fmt.Errorf("get %q: %w", k, err)
			}
			if !bytes.Equal(v, recs[k]) {
				return fmt.Errorf("get %q: value differs", k)
			}
		}
		c, err := txn.Cursor()
		if err != nil {
			return err
		}
		defer c.Close()
		i := 0
		for k, v, err := c.First(); ; k, v, err = c.Next() {
			if errors.Is(err, ErrNotFound) {
				break
			}
			if err != nil {
				return err
			}
			if i >= len(want) || string(k) != want[i] || !bytes.Equal(v, recs[want[i]]) {
				return fmt.Errorf("cursor record %d: key %q differs", i, k)
			}
			i++
		}
		if i != len(want) {
			return fmt.Errorf("cursor saw %d records, want %d", i, len(want))
		}
		return nil
	})
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name      string
		flags     Flags
		n, maxVal int
		txnSize   int
	}{
		{"small values", 0, 3000, 300, 97},
		{"mixed sizes", NoSync, 400, 20000, 37},
		{"overflow values", WriteMap, 40, 600000, 7},
		{"one txn", NoSync | NoReadahead, 500, 100, 1000},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			env, _ := openTemp(t, tt.flags, 1<<30)
			recs := randomRecords(rng, tt.n, tt.maxVal)
			putAll(t, env, rng, recs, tt.txnSize)
			checkAll(t, env, recs)
			st, err := env.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if st.Entries != int64(tt.n) || st.PageSize <= 0 || st.Depth < 1 || st.LeafPages < 1 {
				t.Errorf("Stat = %+v, want %d entries", st, tt.n)
			}
			if tt.maxVal > 100000 && st.OverflowPages == 0 {
				t.Errorf("Stat = %+v, want overflow pages", st)
			}
			info, err := env.Info()
			if err != nil {
				t.Fatal(err)
			}
			txns := int64((tt.n + tt.txnSize - 1) / tt.txnSize)
			if info.LastTxnID != txns || info.MapSize != 1<<30 || info.LastPgno < 2 {
				t.Errorf("Info = %+v, want last txn %d", info, txns)
			}
		})
	}
}

func TestDelAndOverwrite(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	rng := rand.New(rand.NewPCG(7, 7))
	recs := randomRecords(rng, 500, 5000)
	putAll(t, env, rng, recs, 50)
	n := 0
	err := env.Update(func(txn *Txn) error {
		for k := range recs {
			switch n++; n % 3 {
			case 0:
				if err := txn.Del([]byte(k)); err != nil {
					return err
				}
				delete(recs, k)
			case 1:
				recs[k] = []byte("replaced " + k)
				if err := txn.Put([]byte(k), recs[k]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, env, recs)
}

func TestUpdateErrorAborts(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	boom := errors.New("boom")
	err := env.Update(func(txn *Txn) error {
		if err := txn.Put([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatalf("Update error = %v, want fn's error", err)
	}
	err = env.View(func(txn *Txn) error {
		_, err := txn.Get([]byte("k"))
		return err
	})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("aborted put is visible: err = %v", err)
	}
}

func TestNotFound(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	err := env.View(func(txn *Txn) error {
		c, err := txn.Cursor()
		if err != nil {
			return err
		}
		if _, _, err := c.First(); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("First on empty db: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = env.Update(func(txn *Txn) error {
		if err := txn.Put([]byte("b"), []byte("1")); err != nil {
			return err
		}
		if _, err := txn.Get([]byte("a")); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("Get missing: %v", err)
		} else if !strings.Contains(err.Error(), "mdb_get") {
			return fmt.Errorf("error %q does not name mdb_get", err)
		}
		if err := txn.Del([]byte("a")); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("Del missing: %v", err)
		}
		c, err := txn.Cursor()
		if err != nil {
			return err
		}
		if _, _, err := c.Last(); err != nil {
			return err
		}
		if _, _, err := c.Next(); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("Next past end: %v", err)
		}
		if _, _, err := c.Seek([]byte("c")); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("Seek past end: %v", err)
		}
		// c is left open on purpose: the commit closes it.
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSeek(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	err := env.Update(func(txn *Txn) error {
		for _, k := range []string{"b", "d", "f"} {
			if err := txn.Put([]byte(k), []byte("v"+k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ seek, key, next string }{{"", "b", "d"}, {"b", "b", "d"}, {"c", "d", "f"}, {"e", "f", ""}}
	var leaked *Cursor
	err = env.View(func(txn *Txn) error {
		c, err := txn.Cursor()
		if err != nil {
			return err
		}
		leaked = c
		for _, tt := range tests {
			k, v, err := c.Seek([]byte(tt.seek))
			if err != nil || string(k) != tt.key || string(v) != "v"+tt.key {
				return fmt.Errorf("Seek(%q) = %q, %q, %v; want %q", tt.seek, k, v, err, tt.key)
			}
			k, _, err = c.Next()
			if string(k) != tt.next || (tt.next == "") != errors.Is(err, ErrNotFound) {
				return fmt.Errorf("Next after Seek(%q) = %q, %v; want %q", tt.seek, k, err, tt.next)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	leaked.Close() // after the transaction ended: must be harmless
}

func TestEmptyValue(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	err := env.Update(func(txn *Txn) error {
		if err := txn.Put([]byte("k"), nil); err != nil {
			return err
		}
		if err := txn.Put(nil, []byte("v")); err == nil {
			return errors.New("Put with empty key succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = env.View(func(txn *Txn) error {
		v, err := txn.Get([]byte("k"))
		if err != nil || len(v) != 0 {
			return fmt.Errorf("Get = %q, %v; want empty", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such")
	file := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(file, bytes.Repeat([]byte("x"), 20000), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		path  string
		flags Flags
		is    error
	}{
		{"missing dir", missing, ReadOnly, fs.ErrNotExist},
		{"missing dir rw", missing, 0, fs.ErrNotExist},
		{"not lmdb", file, ReadOnly | NoSubdir | NoLock, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := Open(tt.path, tt.flags, 0)
			if err == nil {
				env.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), "mdb_env_open") {
				t.Errorf("error %q does not name the path and call", err)
			}
			var le *Error
			if !errors.As(err, &le) || le.Code == 0 {
				t.Errorf("error %v is not an *Error with a code", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestReadOnlyNoLock(t *testing.T) {
	env, dir := openTemp(t, 0, 1<<24)
	rng := rand.New(rand.NewPCG(3, 3))
	recs := randomRecords(rng, 200, 3000)
	putAll(t, env, rng, recs, 50)
	env.Close()
	lock := filepath.Join(dir, "lock.mdb")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(dir, ReadOnly|NoLock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	checkAll(t, ro, recs)
	if err := ro.Update(func(*Txn) error { return nil }); err == nil {
		t.Error("write transaction in a read-only env succeeded")
	}
	if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only NoLock open touched %s: %v", lock, err)
	}
}

func TestNoSubdir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	env, err := Open(path, NoSubdir, 1<<24)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Update(func(txn *Txn) error { return txn.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	env.Close()
	for _, p := range []string{path, path + "-lock"} {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v, want a regular file", p, err)
		}
	}
}

func TestMapFullAndGrow(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<20)
	val := make([]byte, 64<<10)
	fill := func(n int) error {
		return env.Update(func(txn *Txn) error {
			for i := range n {
				if err := txn.Put(fmt.Appendf(nil, "%06d", i), val); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err := fill(64)
	if !IsMapFull(err) || !errors.Is(err, ErrMapFull) {
		t.Fatalf("4 MiB into a 1 MiB map: err = %v, want ErrMapFull", err)
	}
	if err := env.SetMapSize(16 << 20); err != nil {
		t.Fatal(err)
	}
	if err := fill(64); err != nil {
		t.Fatalf("after growing the map: %v", err)
	}
}

func TestFileOffset(t *testing.T) {
	for _, flags := range []Flags{0, WriteMap} {
		t.Run(fmt.Sprintf("flags=%#x", uint(flags)), func(t *testing.T) {
			env, dir := openTemp(t, flags, 1<<28)
			rng := rand.New(rand.NewPCG(11, uint64(flags)))
			recs := randomRecords(rng, 300, 40000)
			putAll(t, env, rng, recs, 60)
			if err := env.Sync(true); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(filepath.Join(dir, "data.mdb"))
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			err = env.View(func(txn *Txn) error {
				c, err := txn.Cursor()
				if err != nil {
					return err
				}
				for k, v, err := c.First(); err == nil; k, v, err = c.Next() {
					for _, b := range [][]byte{k, v} {
						off := env.FileOffset(b)
						if len(b) == 0 {
							continue
						}
						if off < 0 || off+int64(len(b)) > int64(len(file)) || !bytes.Equal(file[off:off+int64(len(b))], b) {
							return fmt.Errorf("FileOffset = %d for %d bytes of key %q: not those bytes", off, len(b), k)
						}
						checked++
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if checked < len(recs) {
				t.Errorf("checked %d views, want >= %d", checked, len(recs))
			}
			if off := env.FileOffset([]byte("not in the map")); off != -1 {
				t.Errorf("FileOffset of Go memory = %d, want -1", off)
			}
			if off := env.FileOffset(nil); off != -1 {
				t.Errorf("FileOffset(nil) = %d, want -1", off)
			}
		})
	}
}

func TestConcurrentViews(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<26)
	rng := rand.New(rand.NewPCG(5, 5))
	recs := randomRecords(rng, 1000, 2000)
	putAll(t, env, rng, recs, 100)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = verify(env, recs) })
	}
	// A writer rewrites the records alongside the readers, copy-on-write.
	putAll(t, env, rand.New(rand.NewPCG(6, 6)), recs, 10)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestClosedEnvPanics(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<20)
	env.Close()
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Stat on a closed Env did not panic")
		}
	}()
	env.Stat()
}

func TestBeginRead(t *testing.T) {
	env, _ := openTemp(t, 0, 1<<24)
	rng := rand.New(rand.NewPCG(8, 8))
	recs := randomRecords(rng, 100, 500)
	putAll(t, env, rng, recs, 100)
	txn, err := env.BeginRead()
	if err != nil {
		t.Fatal(err)
	}
	c, err := txn.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	// A write after BeginRead is not in the snapshot.
	putAll(t, env, rng, map[string][]byte{"\xff new": nil}, 1)
	n := 0
	// The snapshot moves between goroutines, one at a time.
	done := make(chan error)
	go func() {
		var err error
		for _, _, err = c.First(); err == nil; _, _, err = c.Next() {
			n++
		}
		done <- err
	}()
	if err := <-done; !errors.Is(err, ErrNotFound) || n != len(recs) {
		t.Errorf("walked %d records (err %v), want %d", n, err, len(recs))
	}
	txn.Abort()
	txn.Abort()
	c.Close()
	if info, err := env.Info(); err != nil || info.NumReaders < 1 {
		t.Errorf("Info = %+v, %v", info, err)
	}
}
