package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is the unit of the times in /proc/PID/stat: USER_HZ, which the
// kernel fixes at 100 for user space on every Linux architecture (what
// sysconf(_SC_CLK_TCK) returns).
const clockTicks = 100

// ProcessAge returns how long ago this process was started (exec'd), from
// its start time in /proc/self/stat and the CLOCK_BOOTTIME clock the kernel
// counts it on. The resolution is a clock tick, 10 ms. Every contender of a
// benchmark, lmdbio and the peers alike, measures the start-up of its
// process this way: what runs before its own code (for lmdbio the runtime,
// for a peer the interpreter and imports), which its window leaves out.
func ProcessAge() (time.Duration, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, fmt.Errorf("bench: process start: %w", err)
	}
	ticks, err := ParseStartTime(b)
	if err != nil {
		return 0, err
	}
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &now); err != nil {
		return 0, fmt.Errorf("bench: process start: %w", err)
	}
	start := time.Duration(ticks) * (time.Second / clockTicks)
	age := time.Duration(now.Nano()) - start
	if age < 0 { // a start within the last tick
		age = 0
	}
	return age, nil
}

// ParseStartTime returns field 22 of a /proc/PID/stat line, the process's
// start time in clock ticks after boot. The second field, the command name
// in parentheses, may itself hold spaces and parentheses, so fields are
// counted from the last ')'.
func ParseStartTime(stat []byte) (int64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("bench: stat line without a command name: %w", ErrFormat)
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is field 3 (state); starttime is field 22.
	const startField = 22 - 3
	if len(fields) <= startField {
		return 0, fmt.Errorf("bench: stat line with %d fields after the command name: %w", len(fields), ErrFormat)
	}
	v, err := strconv.ParseInt(string(fields[startField]), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bench: stat start time %q: %w", fields[startField], ErrFormat)
	}
	return v, nil
}
