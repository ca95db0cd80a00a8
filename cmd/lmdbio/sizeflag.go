package main

import "github.com/lmdbio/lmdbio/internal/units"

// sizeFlag is a byte count given with an optional unit: 4096, 64KiB, 4MiB,
// 1GB. Binary units (KiB) and decimal ones (KB) both work.
type sizeFlag int64

func (s *sizeFlag) String() string { return humanBytes(int64(*s)) }
func (s *sizeFlag) Type() string   { return "bytes" }

func (s *sizeFlag) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}
