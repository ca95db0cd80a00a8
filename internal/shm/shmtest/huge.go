//go:build linux

// Package shmtest helps tests put shared-memory segments on huge pages.
package shmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// HugePageSize is the size of the pool's pages the tests use: the
// architecture's default, 2 MiB on x86-64 and arm64 with 4 KiB pages.
const HugePageSize = 2 << 20

// HugeDir mounts a hugetlbfs of the test's own and returns its path, with
// at least pages huge pages free in the pool: where there are fewer, it
// adds the missing ones to vm.nr_hugepages for the test and gives them back
// after. It needs root; without it, or where the kernel has no huge pages
// to give, the test is skipped.
func HugeDir(t testing.TB, pages int64) string {
	t.Helper()
	mnt := t.TempDir()
	opts := fmt.Sprintf("mode=0777,pagesize=%d", HugePageSize)
	if err := unix.Mount("none", mnt, "hugetlbfs", 0, opts); err != nil {
		t.Skipf("cannot mount a hugetlbfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	if missing := pages - FreeHugePages(t); missing > 0 {
		nr := poolFile("nr_hugepages")
		was := readCount(t, nr)
		if err := os.WriteFile(nr, []byte(strconv.FormatInt(was+missing, 10)), 0); err != nil {
			t.Skipf("cannot reserve huge pages here: %v", err)
		}
		t.Cleanup(func() { os.WriteFile(nr, []byte(strconv.FormatInt(was, 10)), 0) })
		if free := FreeHugePages(t); free < pages {
			t.Skipf("the kernel gave %d huge pages of the %d asked", free, pages)
		}
	}
	return mnt
}

// FreeHugePages returns the pool's huge pages free for new mappings (free
// less reserved).
func FreeHugePages(t testing.TB) int64 {
	t.Helper()
	return readCount(t, poolFile("free_hugepages")) - readCount(t, poolFile("resv_hugepages"))
}

func poolFile(name string) string {
	return filepath.Join("/sys/kernel/mm/hugepages", fmt.Sprintf("hugepages-%dkB", HugePageSize>>10), name)
}

func readCount(t testing.TB, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no huge page pool: %v", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
