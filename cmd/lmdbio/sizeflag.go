package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeFlag is a byte count given with an optional unit: 4096, 64KiB, 4MiB,
// 1GB. Binary units (KiB) and decimal ones (KB) both work.
type sizeFlag int64

func (s *sizeFlag) String() string { return humanBytes(int64(*s)) }
func (s *sizeFlag) Type() string   { return "bytes" }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 4096, 64KiB, 4MiB)", v)
	}
	return int64(f * float64(mult)), nil
}
