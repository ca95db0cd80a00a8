//go:build linux

package shm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCheckFree(t *testing.T) {
	if err := CheckFree(0); err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks == 0 {
		t.Skip(dir + " has no size limit")
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	err := CheckFree(free + 1<<30)
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("CheckFree(free+1GiB): %v, want ErrNoSpace", err)
	}
	var ns *NoSpaceError
	if !errors.As(err, &ns) || ns.Need != free+1<<30 || ns.Mount != dir {
		t.Fatalf("error %#v", err)
	}
	for _, want := range []string{"need ", "free on " + dir, "--prefetch", "remount,size="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}

	// Create refuses before making a file.
	job := testJob(t)
	cleanup(t, job)
	name := Name(job, "huge")
	if _, err := Create(name, free+1<<30); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Create: %v, want ErrNoSpace", err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("Create left a file behind: %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 29: "1.5 GiB", 5 << 40: "5.0 TiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestReserveOnFullTmpfs mounts a 1 MiB tmpfs (root only) to show that a
// segment too large for it fails at Create with ErrNoSpace, both from the
// free-space check and from fallocate when the check is raced.
func TestReserveOnFullTmpfs(t *testing.T) {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	saved := dir
	dir = mnt
	t.Cleanup(func() { dir = saved })

	if _, err := Create(Name("j", "big"), 2<<20); !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), mnt) {
		t.Fatalf("Create 2 MiB in a 1 MiB tmpfs: %v", err)
	}
	// Bypass CheckFree, as a concurrent Create would: fallocate must fail.
	fd, err := unix.Open(filepath.Join(mnt, "raw"), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := sizeAndMap(fd, 2<<20); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("sizeAndMap 2 MiB in a 1 MiB tmpfs: %v, want ErrNoSpace", err)
	}
	s, err := Create(Name("j", "fits"), 512<<10)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}
