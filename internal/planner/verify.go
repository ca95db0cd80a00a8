package planner

import (
	"errors"
	"fmt"
)

// ErrInvariant is wrapped by every error Verify returns.
var ErrInvariant = errors.New("planner: invariant violated")

// Verify checks that spans is a valid plan of records from src under opt,
// as documented in the package overview. It returns nil or an error
// wrapping ErrInvariant that names the first violation. It costs about as
// much as Plan, so callers run it in tests and debug builds.
func Verify(src Extents, records []int, opt Options, spans []Span) error {
	opt.check()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvariant, fmt.Sprintf(format, args...))
	}
	missing := make(map[int]int, len(records))
	for _, r := range records {
		missing[r]++
	}
	for si, s := range spans {
		if s.Length < 0 || s.Offset < 0 {
			return bad("span %d is %d+%d", si, s.Offset, s.Length)
		}
		if si > 0 && spans[si-1].End() > s.Offset {
			return bad("span %d (%d+%d) overlaps or precedes span %d (%d+%d)",
				si, s.Offset, s.Length, si-1, spans[si-1].Offset, spans[si-1].Length)
		}
		if opt.Align > 1 && (s.Offset%opt.Align != 0 || s.Length%opt.Align != 0) {
			return bad("span %d (%d+%d) is not aligned to %d", si, s.Offset, s.Length, opt.Align)
		}
		if len(s.Records) == 0 {
			return bad("span %d holds no records", si)
		}
		if err := verifySpan(src, opt, si, s, missing); err != nil {
			return bad("%v", err)
		}
	}
	for r, n := range missing {
		if n > 0 {
			return bad("record %d requested %d more time(s) than placed", r, n)
		}
	}
	return nil
}

// verifySpan checks the placements of span si and the gap and size rules,
// counting each placement off missing.
func verifySpan(src Extents, opt Options, si int, s Span, missing map[int]int) error {
	var runEnd int64 // aligned end of the records seen so far in this span
	splittable := false
	for pi, p := range s.Records {
		if missing[p.Record] == 0 {
			return fmt.Errorf("span %d places record %d more often than requested", si, p.Record)
		}
		missing[p.Record]--
		off, n := src.Extent(p.Record)
		if p.Offset < 0 || p.Length != n || p.Offset > s.Length-p.Length || s.Offset+p.Offset != off {
			return fmt.Errorf("span %d (%d+%d) places record %d (file %d+%d) at %d+%d",
				si, s.Offset, s.Length, p.Record, off, n, p.Offset, p.Length)
		}
		if pi == 0 {
			if opt.down(off) != s.Offset {
				return fmt.Errorf("span %d starts at %d, not at its first record %d", si, s.Offset, off)
			}
			runEnd = opt.up(off + n)
			continue
		}
		if prev := s.Records[pi-1]; prev.Offset > p.Offset {
			return fmt.Errorf("span %d lists record %d before record %d", si, prev.Record, p.Record)
		}
		if off+n > runEnd {
			gap := opt.down(off) - runEnd
			if gap > opt.MaxGap && gap >= 0 {
				return fmt.Errorf("span %d reads through a gap of %d bytes before record %d (MaxGap %d)",
					si, gap, p.Record, opt.MaxGap)
			}
			if gap >= 0 {
				splittable = true
			}
			runEnd = opt.up(off + n)
		}
	}
	if s.Offset+s.Length != runEnd {
		return fmt.Errorf("span %d ends at %d, its records at %d", si, s.Offset+s.Length, runEnd)
	}
	if opt.MaxSpan > 0 && s.Length > opt.MaxSpan && splittable {
		return fmt.Errorf("span %d is %d bytes, more than MaxSpan %d, yet could be split", si, s.Length, opt.MaxSpan)
	}
	return nil
}
