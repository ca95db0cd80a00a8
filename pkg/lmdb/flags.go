package lmdb

// Flags select how Open opens an environment. Their values are liblmdb's
// MDB_* option bits; env.go checks that at compile time.
type Flags uint

// Flags accepted by Open.
const (
	// NoSubdir (MDB_NOSUBDIR): path is the data file itself and the lock
	// file is path+"-lock", instead of path/data.mdb and path/lock.mdb.
	NoSubdir Flags = 0x4000
	// NoSync (MDB_NOSYNC): do not fsync on commit. Faster bulk loads; call
	// Env.Sync at the end.
	NoSync Flags = 0x10000
	// ReadOnly (MDB_RDONLY): open for reading only.
	ReadOnly Flags = 0x20000
	// NoMetaSync (MDB_NOMETASYNC): fsync data but not the meta page on commit.
	NoMetaSync Flags = 0x40000
	// WriteMap (MDB_WRITEMAP): write through a writable memory map. On Linux
	// this grows the data file to the map size (sparse).
	WriteMap Flags = 0x80000
	// NoLock (MDB_NOLOCK): no lock file and no locking. The caller ensures
	// there is no concurrent writer; with ReadOnly this opens datasets on
	// read-only file systems.
	NoLock Flags = 0x400000
	// NoReadahead (MDB_NORDAHEAD): advise the kernel not to read ahead.
	NoReadahead Flags = 0x800000

	// noTLS (MDB_NOTLS) is always set: goroutines move between OS threads, so
	// reader slots must belong to transactions, not threads.
	noTLS Flags = 0x200000
)
