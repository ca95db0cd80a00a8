//go:build linux

package shm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// SweepStale removes the segments left behind by processes that no longer
// run, among those whose names start with prefix (Prefix(job) for one job,
// "" for every lmdbio segment). It returns the names it removed.
//
// A segment is stale when the creator recorded in its header has exited,
// or its pid now belongs to a process with another start time. A segment
// whose header cannot be read is stale when the pid in its name has exited.
// Segments of live processes, files of other users and files whose names
// are not lmdbio segment names are left alone. Errors on single files are
// collected; the sweep goes on.
func SweepStale(prefix string) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("shm: sweep %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		_, namePID, _, ok := parseName(name)
		if !ok {
			continue
		}
		stale, err := isStale(filepath.Join(dir, name), namePID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !stale {
			continue
		}
		if err := unix.Unlink(filepath.Join(dir, name)); err != nil {
			if !errors.Is(err, unix.ENOENT) { // ENOENT: a concurrent sweep was faster
				errs = append(errs, fmt.Errorf("shm: sweep: unlink %s: %w", name, err))
			}
			continue
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

// isStale decides about one candidate file. It reads the header with pread
// rather than mmap: a file truncated under us must not raise SIGBUS.
func isStale(path string, namePID int) (bool, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EACCES) {
			return false, nil // gone, a symlink, or not ours to judge
		}
		return false, fmt.Errorf("shm: sweep: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, fmt.Errorf("shm: sweep: stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) {
		return false, nil
	}
	buf := make([]byte, headerLen)
	n, _ := unix.Pread(fd, buf, 0)
	if n < 0 {
		n = 0
	}
	if info, err := parseHeader(buf[:n]); err == nil {
		return !alive(info.CreatorPID, info.CreatorStart), nil
	}
	return !alive(namePID, 0), nil
}
