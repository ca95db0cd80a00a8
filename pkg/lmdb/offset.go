//go:build cgo

package lmdb

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// errNotMapped means an address lies outside the environment's map.
var errNotMapped = errors.New("lmdb: address not in the data file's map")

// FileOffset returns the offset in the data file of b's first byte, where b
// is a key or value view returned by Get or a Cursor, or -1 if b does not
// lie within this environment's map (a copy, or a value in a dirty page of
// a write transaction that has not reached the file yet).
//
// liblmdb does not expose the map's address (mdb_env_info's me_mapaddr is 0
// unless MDB_FIXEDMAP), so the first call finds it in /proc/self/maps from
// the mapping that holds b and backs onto the data file (mdb_env_get_fd);
// later calls are arithmetic.
func (e *Env) FileOffset(b []byte) int64 {
	p := unsafe.SliceData(b)
	if p == nil {
		return -1
	}
	addr := uintptr(unsafe.Pointer(p))
	base, size := e.mapRange(addr)
	if base == 0 || addr < base || uint64(addr-base)+uint64(len(b)) > uint64(size) {
		return -1
	}
	return int64(addr - base)
}

// mapRange returns the map's base address and size, finding the base from
// the mapping that holds addr if it is not known yet. base is 0 if it
// cannot be found.
func (e *Env) mapRange(addr uintptr) (base uintptr, size int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mapBase == 0 {
		base, err := e.findBase(addr)
		if err != nil {
			return 0, 0
		}
		info, err := e.Info()
		if err != nil {
			return 0, 0
		}
		e.mapBase, e.mapSize = base, info.MapSize
	}
	return e.mapBase, e.mapSize
}

// findBase returns the address of file offset 0 in the map that holds addr,
// after checking that the mapping is of this environment's data file.
func (e *Env) findBase(addr uintptr) (uintptr, error) {
	fd, err := e.fd()
	if err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	m, ok, err := findMapping(f, addr)
	if err != nil {
		return 0, err
	}
	dev := uint64(st.Dev) // Dev is not uint64 on every system
	if !ok || m.inode != uint64(st.Ino) || m.major != unix.Major(dev) || m.minor != unix.Minor(dev) {
		return 0, errNotMapped
	}
	return m.start - uintptr(m.offset), nil
}
