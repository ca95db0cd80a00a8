package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrFormat marks text from /proc that does not read as expected.
var ErrFormat = errors.New("unexpected format")

// IOCounters are the fields of /proc/PID/io that a benchmark reports.
type IOCounters struct {
	ReadBytes int64 // read_bytes: bytes fetched from storage (page-cache hits do not count)
	ReadCalls int64 // syscr: read-type system calls, cached or not
	RChar     int64 // rchar: bytes returned by read-type system calls
}

// Sub returns the counters accumulated since before.
func (c IOCounters) Sub(before IOCounters) IOCounters {
	return IOCounters{ReadBytes: c.ReadBytes - before.ReadBytes, ReadCalls: c.ReadCalls - before.ReadCalls,
		RChar: c.RChar - before.RChar}
}

// ParseProcIO reads the text of /proc/PID/io ("name: value" lines). It needs
// read_bytes and syscr; rchar is optional. Unknown lines are ignored, as
// kernels add fields.
func ParseProcIO(text []byte) (IOCounters, error) {
	var c IOCounters
	var haveBytes, haveCalls bool
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(bytes.TrimSpace(name)) {
		case "read_bytes":
			dst, haveBytes = &c.ReadBytes, true
		case "syscr":
			dst, haveCalls = &c.ReadCalls, true
		case "rchar":
			dst = &c.RChar
		default:
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || v < 0 {
			return IOCounters{}, fmt.Errorf("bench: io counters: %s %q: %w", name, bytes.TrimSpace(value), ErrFormat)
		}
		*dst = v
	}
	if err := sc.Err(); err != nil {
		return IOCounters{}, fmt.Errorf("bench: io counters: %w", err)
	}
	if !haveBytes || !haveCalls {
		return IOCounters{}, fmt.Errorf("bench: io counters: no read_bytes or syscr line: %w", ErrFormat)
	}
	return c, nil
}

// SelfIO reads this process's I/O counters (all its threads). On systems
// without /proc/self/io (or kernels without task I/O accounting) it returns
// an error; callers report zeros then.
func SelfIO() (IOCounters, error) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return IOCounters{}, fmt.Errorf("bench: %w", err)
	}
	return ParseProcIO(b)
}
