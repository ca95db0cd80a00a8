package lmdbwalk

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// mapping is one line of /proc/self/maps: a range of the address space and
// the file region behind it.
type mapping struct {
	start, end   uintptr
	offset       int64 // file offset of start
	major, minor uint32
	inode        uint64
}

// findMapping returns the mapping in the /proc/<pid>/maps text r that
// contains addr. ok is false when no line does.
func findMapping(r io.Reader, addr uintptr) (m mapping, ok bool, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m, err := parseMapping(sc.Text())
		if err != nil {
			return mapping{}, false, err
		}
		if m.start <= addr && addr < m.end {
			return m, true, nil
		}
	}
	return mapping{}, false, sc.Err()
}

// parseMapping parses "start-end perms offset major:minor inode [path]",
// all numbers but the inode in hexadecimal.
func parseMapping(line string) (mapping, error) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return mapping{}, fmt.Errorf("lmdbwalk: maps line %q: too few fields", line)
	}
	lo, hi, ok1 := strings.Cut(f[0], "-")
	major, minor, ok2 := strings.Cut(f[3], ":")
	if !ok1 || !ok2 {
		return mapping{}, fmt.Errorf("lmdbwalk: maps line %q: bad range or device", line)
	}
	var m mapping
	var nums [6]uint64
	for i, s := range []string{lo, hi, f[2], major, minor, f[4]} {
		base := 16
		if i == 5 {
			base = 10
		}
		n, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			return mapping{}, fmt.Errorf("lmdbwalk: maps line %q: %w", line, err)
		}
		nums[i] = n
	}
	m.start, m.end, m.offset = uintptr(nums[0]), uintptr(nums[1]), int64(nums[2])
	m.major, m.minor, m.inode = uint32(nums[3]), uint32(nums[4]), nums[5]
	return m, nil
}
