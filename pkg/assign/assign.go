package assign

import (
	"fmt"
	"math"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Remainder says what happens to records that do not fill a round.
type Remainder int

const (
	// Pad fills the last round with records from the start of the order,
	// as PyTorch's DistributedSampler does: no record is left out. It is the
	// zero value, so the default never drops records silently.
	Pad Remainder = iota
	// DropLast leaves out the records that do not fill a whole round.
	DropLast
	// Keep delivers every record exactly once; the last batches are short,
	// spread over the learners as evenly as DistributedSampler spreads the
	// records it does not pad. It suits evaluation, where a repeated record
	// would skew the score.
	Keep
)

// ParseRemainder reads "pad", "drop-last" or "keep".
func ParseRemainder(s string) (Remainder, error) {
	switch s {
	case "pad":
		return Pad, nil
	case "drop-last", "drop":
		return DropLast, nil
	case "keep", "all":
		return Keep, nil
	}
	return 0, fmt.Errorf("remainder %q: want pad, drop-last or keep", s)
}

func (r Remainder) String() string {
	switch r {
	case Pad:
		return "pad"
	case DropLast:
		return "drop-last"
	case Keep:
		return "keep"
	}
	return fmt.Sprintf("Remainder(%d)", int(r))
}

// Layout describes the learners an assignment covers.
type Layout struct {
	Batch     int   // records per learner batch
	NodeSizes []int // learners on each node, by node id
	Remainder Remainder
}

// ErrEmpty is returned when the layout leaves no batch to deliver.
var ErrEmpty = failure.New(failure.Input, "no full batch to deliver")

// ErrTooLarge is returned when a global batch cannot be formed: its size
// overflows, or padding would repeat records more than once.
var ErrTooLarge = failure.New(failure.Input, "global batch too large")

// Learners is the number of learners of all nodes.
func (l Layout) Learners() int {
	n := 0
	for _, s := range l.NodeSizes {
		n += s
	}
	return n
}

// GlobalBatch is Batch x Learners: the records of one round.
func (l Layout) GlobalBatch() int { return l.Batch * l.Learners() }

// Rounds is the number of rounds an epoch of n positions has, or an error
// if the layout cannot deliver them.
func (l Layout) Rounds(n int) (int, error) { return l.check(n) }

// check validates the layout for n positions and returns the number of
// rounds. Every product is checked before it is formed: the numbers come
// from users.
func (l Layout) check(n int) (rounds int, err error) {
	learners := 0
	for node, size := range l.NodeSizes {
		if size < 1 || size > math.MaxInt32 {
			return 0, fmt.Errorf("assign: node %d has %d learners", node, size)
		}
		learners += size
	}
	if l.Batch < 1 || learners == 0 || n < 0 || learners > math.MaxInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("assign: batch %d, %d learners, %d records", l.Batch, learners, n)
	}
	if l.Batch > math.MaxInt32/learners {
		return 0, fmt.Errorf("assign: batch %d x %d learners overflows: %w", l.Batch, learners, ErrTooLarge)
	}
	global := l.Batch * learners
	rounds = n / global
	if l.Remainder != DropLast && n%global != 0 {
		rounds++
	}
	if l.Remainder == Pad && n > 0 && global > n {
		return 0, fmt.Errorf("assign: a round of %d learners x batch %d is %d records, more than the %d there are; padding would repeat them (use a smaller batch or --remainder keep): %w",
			learners, l.Batch, global, n, ErrTooLarge)
	}
	if rounds == 0 && !(l.Remainder == Keep && n == 0) {
		return 0, fmt.Errorf("assign: %d records make no full round of %d learners x batch %d (use --remainder keep or pad, or a smaller batch): %w",
			n, learners, l.Batch, ErrEmpty)
	}
	return rounds, nil
}
