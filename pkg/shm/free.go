//go:build linux

package shm

import (
	"errors"
	"fmt"
	"math"

	"golang.org/x/sys/unix"
)

// ErrNoSpace is wrapped by errors for a shared-memory file system too full
// for a segment. The error is a *NoSpaceError.
var ErrNoSpace = errors.New("shm: not enough shared memory")

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
// has room.
func CheckFree(need int64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("shm: statfs %s: %w", dir, err)
	}
	if st.Blocks == 0 {
		return nil // tmpfs with size=0: unlimited
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if need > free {
		return &NoSpaceError{Need: need, Free: free, Total: int64(st.Blocks) * int64(st.Bsize), Mount: dir, Hint: NoSpaceHint}
	}
	return nil
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
// system, and its size; math.MaxInt64 for both when it has no limit.
func Free() (free, total int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("shm: statfs %s: %w", dir, err)
	}
	if st.Blocks == 0 {
		return math.MaxInt64, math.MaxInt64, nil
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Blocks) * int64(st.Bsize), nil
}

// FormatBytes prints n in binary units with one decimal, as the package's
// messages do.
func FormatBytes(n int64) string { return formatBytes(n) }
