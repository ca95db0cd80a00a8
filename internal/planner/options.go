package planner

import "fmt"

// Options bound the spans Plan produces. The zero value is valid: no size
// limit, merge only records that touch or overlap, no alignment.
type Options struct {
	// MaxSpan is the upper bound of one read in bytes, for example 16 MiB.
	// A record (or a chain of overlapping records) larger than MaxSpan gets
	// a span of its own. Zero or negative means no limit.
	MaxSpan int64
	// MaxGap is how many bytes of unwanted data Plan reads through to merge
	// two records into one span. Zero merges only records that touch;
	// negative merges only records that overlap (or share an Align block).
	MaxGap int64
	// Align is 0 or a power of two (4096 for O_DIRECT). Span offsets are
	// rounded down and span ends rounded up to a multiple of it.
	Align int64
}

// check panics on options no caller should pass: an alignment that is not
// a power of two would make the rounding below meaningless.
func (o Options) check() {
	if o.Align < 0 || o.Align&(o.Align-1) != 0 {
		panic(fmt.Sprintf("planner: Align %d is not 0 or a power of two", o.Align))
	}
}

// down rounds x down to a multiple of Align.
func (o Options) down(x int64) int64 {
	if o.Align <= 1 {
		return x
	}
	return x &^ (o.Align - 1)
}

// up rounds x up to a multiple of Align.
func (o Options) up(x int64) int64 {
	if o.Align <= 1 {
		return x
	}
	return (x + o.Align - 1) &^ (o.Align - 1)
}
