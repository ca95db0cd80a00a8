package cli

import "github.com/lmdbio/lmdbio/internal/units"

// SizeFlag is a byte count given with an optional unit: 4096, 64KiB, 4MiB,
// 1GB. Binary units (KiB) and decimal ones (KB) both work.
type SizeFlag int64

func (s *SizeFlag) String() string { return HumanBytes(int64(*s)) }
func (s *SizeFlag) Type() string   { return "bytes" }

func (s *SizeFlag) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s = SizeFlag(n)
	return nil
}
