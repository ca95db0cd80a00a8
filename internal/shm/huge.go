//go:build linux

package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// hugetlbfsMagic is the f_type statfs reports for a hugetlbfs mount.
const hugetlbfsMagic = 0x958458f6

// Huge pages: where DirEnv names a hugetlbfs mount, every segment is made of
// huge pages from the kernel's pool (vm.nr_hugepages, reserved by an
// administrator), so a learner pays a first touch once per 512 small pages
// (docs/decisions/0003-first-touch.md). hugetlbfs differs from tmpfs in three
// ways the package hides: files are sized in whole huge pages, write(2) is
// refused (WriteAt copies through the mapping), and free space is the
// pool's, which statfs does not show without a size= mount option.

// hugePageSize returns the huge page size of the file system holding fd's
// file, or 0 if it is not hugetlbfs.
func hugePageSize(fd int) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return 0, err
	}
	return hugeOf(&st), nil
}

// hugeOf is hugePageSize from a statfs result.
func hugeOf(st *unix.Statfs_t) int64 {
	if uint32(st.Type) != hugetlbfsMagic {
		return 0
	}
	return st.Bsize
}

// roundUp rounds n up to a multiple of page (a power of two), or returns n
// when page is 0.
func roundUp(n, page int64) int64 {
	if page == 0 {
		return n
	}
	return (n + page - 1) &^ (page - 1)
}

// hugePool returns the bytes of huge pages of size page that the pool has
// free for new mappings (free less reserved), and the pool's size.
func hugePool(page int64) (free, total int64, err error) {
	base := filepath.Join(hugePagesDir, fmt.Sprintf("hugepages-%dkB", page>>10))
	var v [3]int64
	for i, name := range []string{"free_hugepages", "resv_hugepages", "nr_hugepages"} {
		b, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			return 0, 0, fmt.Errorf("shm: huge page pool: %w", err)
		}
		if v[i], err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil {
			return 0, 0, fmt.Errorf("shm: huge page pool: %s: %w", name, err)
		}
	}
	return max(0, v[0]-v[1]) * page, v[2] * page, nil
}

// hugePagesDir is where the kernel shows its huge page pools.
var hugePagesDir = "/sys/kernel/mm/hugepages"
