package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// ResetPeakRSS sets the process's peak resident set size ("high water mark")
// back to its current RSS by writing 5 to /proc/self/clear_refs (Linux 4.0 and
// later). Without it the peak of one measurement would carry over into every
// later one of the same process. It returns an error where that is not
// possible; PeakRSS then reports the peak since the process started.
func ResetPeakRSS() error {
	f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("bench: reset peak RSS: %w", err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("5")); err != nil {
		return fmt.Errorf("bench: reset peak RSS: %w", err)
	}
	return nil
}

// PeakRSS returns the process's peak resident set size in bytes: VmHWM from
// /proc/self/status, which ResetPeakRSS can reset, else getrusage's
// ru_maxrss, the peak since the process started. Resident pages of shared
// memory and of mmapped files the process touched count.
func PeakRSS() (int64, error) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if v, err := ParseStatusKB(b, "VmHWM"); err == nil {
			return v, nil
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("bench: getrusage: %w", err)
	}
	return int64(ru.Maxrss) * 1024, nil // kilobytes on Linux
}

// ParseStatusKB finds the field name ("VmHWM", "VmRSS", ...) in the text of
// /proc/PID/status, a line like "VmHWM:\t  12345 kB", and returns it in bytes.
func ParseStatusKB(text []byte, name string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok || string(k) != name {
			continue
		}
		fields := bytes.Fields(v)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("bench: status %s %q: %w", name, bytes.TrimSpace(v), ErrFormat)
		}
		n, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil || n < 0 || n > 1<<53 {
			return 0, fmt.Errorf("bench: status %s %q: %w", name, bytes.TrimSpace(v), ErrFormat)
		}
		return n * 1024, nil
	}
	return 0, fmt.Errorf("bench: status has no %s line: %w", name, ErrFormat)
}
