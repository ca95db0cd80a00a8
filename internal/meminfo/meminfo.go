// Package meminfo reads the kernel's account of a machine's memory
// (/proc/meminfo), which the loader sizes its node cache by and the tools
// bound their buffers by.
package meminfo

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Read returns every figure of /proc/meminfo, in bytes where the kernel
// gives kB. It fails where MemTotal or MemAvailable is missing (kernels
// before 3.14, other systems): the callers size memory by them.
func Read() (map[string]int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(bufio.NewScanner(f))
}

func parse(sc *bufio.Scanner) (map[string]int64, error) {
	out := map[string]int64{}
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			if len(fields) > 1 && fields[1] == "kB" {
				v <<= 10
			}
			out[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if out["MemTotal"] == 0 || out["MemAvailable"] == 0 {
		return nil, fmt.Errorf("/proc/meminfo: no MemTotal or MemAvailable")
	}
	return out, nil
}

// Available is the memory that can be had without swapping; ok is false
// where the kernel does not say.
func Available() (bytes int64, ok bool) {
	m, err := Read()
	if err != nil {
		return 0, false
	}
	return m["MemAvailable"], true
}
