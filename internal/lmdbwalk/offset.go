//go:build cgo

package lmdbwalk

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// errNotMapped means an address lies outside the data file's map.
var errNotMapped = errors.New("lmdbwalk: address not in the data file's map")

// FileOffset returns the offset in the data file of b's first byte, where b
// is a key or value returned by Seek, or -1 if b does not lie within the
// map (a copy, or nil).
//
// liblmdb does not tell where its map is (mdb_env_info's me_mapaddr is the
// address recorded in the file, 0 unless MDB_FIXEDMAP), so the first call
// finds it in /proc/self/maps: the mapping that holds b and backs onto the
// data file (mdb_env_get_fd). Later calls are arithmetic.
func (w *Walker) FileOffset(b []byte) int64 {
	p := unsafe.SliceData(b)
	if p == nil {
		return -1
	}
	addr := uintptr(unsafe.Pointer(p))
	if w.mapBase == 0 {
		if err := w.findMap(addr); err != nil {
			return -1
		}
	}
	if addr < w.mapBase || uint64(addr-w.mapBase)+uint64(len(b)) > uint64(w.mapSize) {
		return -1
	}
	return int64(addr - w.mapBase)
}

// findMap sets the map's base address and size from the mapping that holds
// addr, after checking that the mapping is of this environment's data file.
func (w *Walker) findMap(addr uintptr) error {
	fd, err := w.env.FD()
	if err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(fd), &st); err != nil {
		return err
	}
	info, err := w.env.Info()
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	m, ok, err := findMapping(f, addr)
	if err != nil {
		return err
	}
	dev := uint64(st.Dev) // Dev is not uint64 on every system
	if !ok || m.inode != uint64(st.Ino) || m.major != unix.Major(dev) || m.minor != unix.Minor(dev) {
		return errNotMapped
	}
	w.mapBase, w.mapSize = m.start-uintptr(m.offset), info.MapSize
	return nil
}
