// Package lmdbwalk reads an LMDB database as a reader without an index does:
// through liblmdb (github.com/PowerDNS/lmdb-go), with a cursor walked record
// by record from the first one. It is what Caffe's reader does, the baseline
// lmdbio is measured against, and how the cursor modes find their records.
//
// # Invariants
//
//   - The database is opened read-only without a lock file (MDB_RDONLY,
//     MDB_NOLOCK, MDB_NOSUBDIR on the data file itself), so it can be read
//     from read-only file systems; the caller ensures no writer runs, or
//     validates the file first.
//   - Keys and values are zero-copy views into liblmdb's map (RawRead). They
//     are valid until Close and must not be written to.
//   - A Walker is used by one goroutine at a time; it may move between
//     goroutines (lmdb-go opens every environment with MDB_NOTLS).
//   - A Walker pins its snapshot (package lmdbpin): where the lock file can
//     be used, writers leave its pages alone; where it cannot, Check says
//     when a writer has committed since, after which views read before may
//     have changed.
//   - A page that fails liblmdb's own checks during a walk (a writer without
//     the lock file reused it, or the file is damaged) is an error wrapping
//     lmdb.Corrupted, where liblmdb would abort the process.
package lmdbwalk
