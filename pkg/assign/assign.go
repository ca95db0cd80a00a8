package assign

import (
	"errors"
	"fmt"
)

// Remainder says what happens to records that do not fill a round.
type Remainder int

const (
	// DropLast leaves out the records that do not fill a whole round.
	DropLast Remainder = iota
	// Pad fills the last round with records from the start of the dataset.
	Pad
	// Keep delivers every record exactly once; the last batches are short.
	Keep
)

// ParseRemainder reads "drop-last", "pad" or "keep".
func ParseRemainder(s string) (Remainder, error) {
	switch s {
	case "drop-last", "drop":
		return DropLast, nil
	case "pad":
		return Pad, nil
	case "keep", "all":
		return Keep, nil
	}
	return 0, fmt.Errorf("remainder %q: want drop-last, pad or keep", s)
}

func (r Remainder) String() string { return [...]string{"drop-last", "pad", "keep"}[r] }

// Layout describes the job and the dataset that an assignment covers.
type Layout struct {
	Records   int   // records in the dataset
	Batch     int   // records per learner batch
	NodeSizes []int // learners on each node, by node id
	Remainder Remainder
}

// ErrEmpty is returned when the layout leaves no batch to deliver.
var ErrEmpty = errors.New("no full batch to deliver")

// Sequential is the database-order assignment.
type Sequential struct {
	layout Layout
	rounds int
	starts []int // first record of each node's share
}

// NewSequential checks the layout and prepares the assignment.
func NewSequential(l Layout) (*Sequential, error) {
	learners := 0
	for n, size := range l.NodeSizes {
		if size < 1 {
			return nil, fmt.Errorf("assign: node %d has %d learners", n, size)
		}
		learners += size
	}
	if l.Batch < 1 || learners == 0 || l.Records < 0 {
		return nil, fmt.Errorf("assign: batch %d, %d learners, %d records", l.Batch, learners, l.Records)
	}
	perRound := l.Batch * learners
	rounds := l.Records / perRound
	if l.Remainder != DropLast && l.Records%perRound != 0 {
		rounds++
	}
	if rounds == 0 && !(l.Remainder == Keep && l.Records == 0) {
		return nil, fmt.Errorf("assign: %d records make no full round of %d learners x batch %d (use --remainder keep or pad, or a smaller batch): %w",
			l.Records, learners, l.Batch, ErrEmpty)
	}
	s := &Sequential{layout: l, rounds: rounds, starts: make([]int, len(l.NodeSizes))}
	next := 0
	for n, size := range l.NodeSizes {
		s.starts[n] = next
		next += rounds * l.Batch * size
	}
	return s, nil
}

// Rounds is the number of batches every learner gets per epoch.
func (s *Sequential) Rounds() int { return s.rounds }

// Batch returns the records learner local of node gets in round, in the order
// it gets them. The epoch does not change a sequential assignment.
func (s *Sequential) Batch(epoch, node, local, round int) []int {
	l := s.layout
	first := s.starts[node] + (round*l.NodeSizes[node]+local)*l.Batch
	var recs []int
	for r := first; r < first+l.Batch; r++ {
		switch {
		case r < l.Records:
			recs = append(recs, r)
		case l.Remainder == Pad:
			recs = append(recs, r%l.Records)
		}
	}
	return recs
}
