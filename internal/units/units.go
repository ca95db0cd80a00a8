// Package units reads and writes byte counts and bandwidths with units
// (4096, 128KiB, 1MiB, 1GB/s), for command-line flags.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits lists the suffixes ParseSize understands, longest first so that
// "KiB" is not read as "B". Binary (KiB) and decimal (KB) units both work;
// the bare letters K, M and G are binary, as in dd and most HPC tools.
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
}

// ParseSize parses a byte count with an optional unit: 4096, 128KiB, 1MiB,
// 1.5GB. Negative, fractional-byte and non-finite values are errors.
func ParseSize(v string) (int64, error) {
	f, mult, ok := number(v)
	if !ok {
		return 0, fmt.Errorf("%q is not a size (e.g. 4096, 128KiB, 1MiB)", v)
	}
	n := f * mult
	if n > math.MaxInt64/2 || n != math.Trunc(n) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", v)
	}
	return int64(n), nil
}

// number splits v into a non-negative finite number and its unit's
// multiplier (1 without a unit).
func number(v string) (f, mult float64, ok bool) {
	s := strings.TrimSpace(v)
	mult = 1
	for _, u := range sizeUnits {
		if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, mult, err == nil && f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// ParseRate parses a bandwidth in bytes per second: "1GB/s", "500MiB/s",
// "2e9" (the "/s" is optional). "0", "off", "none" and "unlimited" mean no
// limit and return 0.
func ParseRate(v string) (float64, error) {
	s := strings.TrimSpace(v)
	switch strings.ToLower(s) {
	case "off", "none", "unlimited", "inf":
		return 0, nil
	}
	f, mult, ok := number(strings.TrimSuffix(strings.TrimSuffix(s, "/s"), "ps"))
	if !ok {
		return 0, fmt.Errorf("%q is not a bandwidth (e.g. 1GB/s, 500MiB/s, unlimited)", v)
	}
	return f * mult, nil
}

// FormatSize renders a byte count in the largest binary unit that divides
// it exactly (1MiB, 128KiB, 4097B), so it parses back to the same value.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// FormatRate renders a bandwidth in decimal units, as storage vendors quote
// it; 0 is "unlimited".
func FormatRate(r float64) string {
	switch {
	case r == 0:
		return "unlimited"
	case r >= 1e9:
		return strconv.FormatFloat(r/1e9, 'g', 4, 64) + "GB/s"
	case r >= 1e6:
		return strconv.FormatFloat(r/1e6, 'g', 4, 64) + "MB/s"
	case r >= 1e3:
		return strconv.FormatFloat(r/1e3, 'g', 4, 64) + "KB/s"
	}
	return strconv.FormatFloat(r, 'g', 4, 64) + "B/s"
}
