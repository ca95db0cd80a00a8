//go:build cgo

package lmdbpin

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/PowerDNS/lmdb-go/lmdb"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
)

// snapshot is a read transaction held on a shared environment.
type snapshot struct {
	env *sharedEnv
	txn *lmdb.Txn
}

// holdSnapshot begins a read transaction on the database at dataPath and
// checks that its snapshot is transaction txnID. It returns nil, and no
// error, when it cannot hold one: the lock file cannot be used, or liblmdb
// has no reader slot left (MDB_READERS_FULL).
func holdSnapshot(dataPath string, txnID uint64) (*snapshot, error) {
	env, err := acquireEnv(dataPath)
	if env == nil || err != nil {
		return nil, err
	}
	txn, err := env.env.BeginTxn(nil, lmdb.Readonly)
	if err != nil {
		env.release()
		return nil, nil
	}
	if got := uint64(txn.ID()); got != txnID {
		txn.Abort()
		env.release()
		return nil, changed("since it was indexed", got, txnID)
	}
	return &snapshot{env, txn}, nil
}

// close ends the transaction.
func (s *snapshot) close() {
	s.txn.Abort()
	s.env.release()
}

// sharedEnv is a database environment opened read-only with its lock file,
// shared by the Pins of one process.
type sharedEnv struct {
	env  *lmdb.Env
	path string
	key  fileKey
	refs int // guarded by envs
}

// fileKey identifies a lock file whatever the path it was reached by.
type fileKey struct{ dev, ino uint64 }

// envs holds the environments open in this process, by lock file.
var envs = struct {
	sync.Mutex
	m map[fileKey]*sharedEnv
}{m: map[fileKey]*sharedEnv{}}

// acquireEnv returns this process's environment of the database at
// dataPath with one more reference, opening it if needed, or nil if its
// lock file cannot be used: there is none (the database was copied without
// it, or is read where it was never written), or liblmdb cannot open it for
// writing (permissions, a read-only file system, another lock format).
func acquireEnv(dataPath string) (*sharedEnv, error) {
	open, flags, key, ok := lockFile(dataPath)
	if !ok {
		return nil, nil
	}
	envs.Lock()
	defer envs.Unlock()
	if e := envs.m[key]; e != nil {
		e.refs++
		return e, nil
	}
	env, err := lmdb.NewEnv()
	if err != nil {
		return nil, err
	}
	if env.Open(open, flags, 0) != nil || !hasReaderTable(env) {
		env.Close()
		return nil, nil
	}
	// Free the slots of readers that died without ending their
	// transactions (mdb_reader_check), or the snapshots they held stay
	// pinned and the writer's file grows.
	_, _ = env.ReaderCheck()
	e := &sharedEnv{env: env, path: dataPath, key: key, refs: 1}
	envs.m[key] = e
	return e, nil
}

// release drops a reference and closes the environment after the last.
func (e *sharedEnv) release() {
	envs.Lock()
	defer envs.Unlock()
	if e.refs--; e.refs == 0 {
		delete(envs.m, e.key)
		e.env.Close()
	}
}

// lockFile finds the lock file of the data file at dataPath and says how
// to open the environment so that liblmdb uses it: lock.mdb beside a
// data.mdb (an environment directory), else the data file's name plus
// "-lock" (MDB_NOSUBDIR). ok is false if neither is a regular file.
func lockFile(dataPath string) (open string, flags uint, key fileKey, ok bool) {
	dir := filepath.Dir(dataPath)
	if filepath.Base(dataPath) == lmdbfmt.DataFileName {
		if key, ok := regularFile(filepath.Join(dir, "lock.mdb")); ok {
			return dir, lmdb.Readonly, key, true
		}
	}
	if key, ok := regularFile(dataPath + "-lock"); ok {
		return dataPath, lmdb.Readonly | lmdb.NoSubdir, key, true
	}
	return "", 0, fileKey{}, false
}

func regularFile(path string) (fileKey, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return fileKey{}, false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(sys.Dev), sys.Ino}, true // Dev is not uint64 everywhere
}

// hasReaderTable reports whether env keeps its readers in the lock file.
// liblmdb opens a read-only environment on a read-only file system without
// one, silently: a read transaction then protects nothing.
func hasReaderTable(env *lmdb.Env) bool {
	txn, err := env.BeginTxn(nil, lmdb.Readonly)
	if err != nil {
		return false
	}
	defer txn.Abort()
	info, err := env.Info()
	return err == nil && info.NumReaders > 0
}
