//go:build linux

package shm

import (
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/pkg/failure"
	"golang.org/x/sys/unix"
)

// ErrNoSpace is wrapped by errors for a shared-memory file system too full
// for a segment. The error is a *NoSpaceError.
var ErrNoSpace = failure.New(failure.Input, "shm: not enough shared memory")

// NoSpaceHint is appended to every NoSpaceError message. Programs set it to
// name their own options; this default names the lmdbio command line.
var NoSpaceHint = "lower --prefetch or --window, or enlarge /dev/shm (mount -o remount,size=...)"

// NoSpaceError reports a shortage of shared memory.
type NoSpaceError struct {
	Need  int64  // bytes the segment needs
	Free  int64  // bytes available, -1 if only the kernel's ENOSPC told
	Total int64  // size of the file system, 0 if unknown
	Mount string // the directory holding the segments
	Hint  string // what to do about it; NoSpaceHint when created here
}

func (e *NoSpaceError) Error() string {
	msg := fmt.Sprintf("shm: need %s of shared memory but ", formatBytes(e.Need))
	if e.Free >= 0 {
		msg += fmt.Sprintf("only %s of %s is free on %s", formatBytes(e.Free), formatBytes(e.Total), e.Mount)
	} else {
		msg += fmt.Sprintf("%s ran out while reserving it", e.Mount)
	}
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// Unwrap lets errors.Is(err, ErrNoSpace) match.
func (e *NoSpaceError) Unwrap() error { return ErrNoSpace }

// CheckFree returns nil if the shared-memory file system has room for need
// more bytes, a *NoSpaceError (wrapping ErrNoSpace) if not, and other errors
// if it cannot be inspected. A tmpfs mounted without a size limit always
// has room; a hugetlbfs mount has what its huge page pool has free, in
// whole huge pages.
func CheckFree(need int64) error {
	free, total, page, err := space()
	if err != nil {
		return err
	}
	if need = roundUp(need, page); need > free {
		return &NoSpaceError{Need: need, Free: free, Total: total, Mount: mountName(page), Hint: NoSpaceHint}
	}
	return nil
}

// space returns the bytes free for segments on the shared-memory file
// system and its size, math.MaxInt64 for both when it has no limit, and its
// huge page size (0 for a tmpfs).
func space() (free, total, page int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, 0, fmt.Errorf("shm: statfs %s: %w", dir, err)
	}
	free, total = math.MaxInt64, math.MaxInt64
	if st.Blocks != 0 { // 0: a tmpfs with size=0, or a hugetlbfs without size=
		free, total = int64(st.Bavail)*st.Bsize, int64(st.Blocks)*st.Bsize
	}
	if page = hugeOf(&st); page > 0 {
		poolFree, poolTotal, err := hugePool(page)
		if err != nil {
			return 0, 0, 0, err
		}
		free, total = min(free, poolFree), min(total, poolTotal)
	}
	return free, total, page, nil
}

// mountName names the directory of the segments in messages, and the pool
// that limits it when its pages are huge.
func mountName(page int64) string {
	if page == 0 {
		return dir
	}
	return fmt.Sprintf("%s (%s huge pages: the pool is vm.nr_hugepages)", dir, formatBytes(page))
}

// formatBytes prints n in binary units with one decimal.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), 0
	for f >= unit && i < 5 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGTP"[i-1])
}

// Free returns the bytes free for segments on the shared-memory file
// system, math.MaxInt64 when it has no limit, and whether they are huge
// pages: a hugetlbfs's pool, which node memory available (MemAvailable)
// does not count.
func Free() (free int64, huge bool, err error) {
	free, _, page, err := space()
	return free, page > 0, err
}

// FormatBytes prints n in binary units with one decimal, as the package's
// messages do.
func FormatBytes(n int64) string { return formatBytes(n) }
