//go:build linux

package shm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// procStat returns the state (field 3) and start time in clock ticks since
// boot (field 22) of process pid from /proc/<pid>/stat. Errors wrap
// fs.ErrNotExist when there is no such process.
func procStat(pid int) (state string, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, err
	}
	return parseStat(string(b))
}

// parseStat extracts fields 3 and 22 from the text of /proc/<pid>/stat.
// The second field, the command name in parentheses, may itself hold spaces
// and parentheses, so fields are counted from the last ')'.
func parseStat(stat string) (state string, start uint64, err error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return "", 0, fmt.Errorf("shm: malformed /proc stat line")
	}
	fields := strings.Fields(stat[i+1:])
	const startField = 22 - 3 // fields[0] is field 3, the state
	if len(fields) <= startField {
		return "", 0, fmt.Errorf("shm: /proc stat line has %d fields", len(fields)+2)
	}
	start, err = strconv.ParseUint(fields[startField], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("shm: /proc stat start time: %w", err)
	}
	return fields[0], start, nil
}

// selfStart is this process's start time, 0 if /proc cannot tell.
func selfStart() uint64 {
	_, st, err := procStat(os.Getpid())
	if err != nil {
		return 0
	}
	return st
}

// alive reports whether the process pid that started at start (0: unknown)
// still runs. When in doubt it answers true: a wrong "dead" would delete
// the memory of a running job.
func alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	state, st, err := procStat(pid)
	switch {
	case err == nil:
		// A zombie has exited and dropped its mappings; only its pid remains.
		return state != "Z" && state != "X" && (start == 0 || st == start)
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			return false // /proc works and has no such process
		}
	}
	// /proc cannot tell; ask the kernel whether the pid exists at all.
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}
