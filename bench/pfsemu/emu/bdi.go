package emu

import (
	"github.com/lmdbio/lmdbio/internal/units"

	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// bdiOf returns the name of the backing-device-info of the file system
// mounted at mnt: "major:minor" of its st_dev, which is how FUSE names its
// bdi under /sys/class/bdi.
func bdiOf(mnt string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(mnt, &st); err != nil {
		return "", fmt.Errorf("stat %s: %w", mnt, err)
	}
	return fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)), nil
}

func readaheadPath(bdi string) string { return "/sys/class/bdi/" + bdi + "/read_ahead_kb" }

// readReadahead returns the readahead of a bdi in bytes.
func readReadahead(bdi string) (int64, error) {
	b, err := os.ReadFile(readaheadPath(bdi))
	if err != nil {
		return 0, fmt.Errorf("readahead: %w", err)
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("readahead: %s: %w", readaheadPath(bdi), err)
	}
	return kb << 10, nil
}

// setReadahead sets the readahead of a bdi and returns the value the kernel
// kept. The FUSE INIT reply can only lower the readahead below the kernel's
// 128 KiB default; sysfs is the one way to raise it.
func setReadahead(bdi string, bytes int64) (int64, error) {
	if cur, err := readReadahead(bdi); err == nil && cur == bytes {
		return cur, nil // nothing to do; also works without the right to write
	}
	kb := strconv.FormatInt(bytes>>10, 10)
	if err := os.WriteFile(readaheadPath(bdi), []byte(kb), 0); err != nil {
		return 0, fmt.Errorf("set readahead: %w", err)
	}
	got, err := readReadahead(bdi)
	if err != nil {
		return 0, err
	}
	if got != bytes {
		return got, fmt.Errorf("set readahead of bdi %s to %s: kernel kept %s", bdi, units.FormatSize(bytes), units.FormatSize(got))
	}
	return got, nil
}
