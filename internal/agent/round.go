package agent

import (
	"encoding/json"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// opDone is a node's proposal once all its learners have exited: they make
// no more calls.
const opDone = "done"

// proposal is what one node brings to a round: its learners' call, or why
// they cannot make it. Every agent gets every node's proposal.
type proposal struct {
	Op      string   `json:"op"` // OpOpen, OpAllreduce or opDone
	Path    string   `json:"path,omitempty"`
	Options string   `json:"options,omitempty"`
	Count   int      `json:"count,omitempty"` // allreduce: values per learner
	Sums    []uint64 `json:"sums,omitempty"`  // allreduce: the node's sums
	Problem *Error   `json:"problem,omitempty"`
}

// call is one learner's pending call, by its rank.
type call struct {
	rank int
	req  Request
}

// propose makes the node's proposal from the next call of each learner that
// has not exited; exited lists the ranks of those that have.
func propose(calls []call, exited []int) proposal {
	if len(calls) == 0 {
		return proposal{Op: opDone}
	}
	first := calls[0]
	p := proposal{Op: first.req.Op}
	problem := func(format string, args ...any) proposal {
		return proposal{Op: p.Op, Problem: newError(failure.Argument, fmt.Sprintf(format, args...))}
	}
	if len(exited) > 0 {
		return problem("rank %d has exited while rank %d calls %s: every learner must make the same lmdbio calls in the same order",
			exited[0], first.rank, first.req.Op)
	}
	for _, c := range calls[1:] {
		if c.req.Op != first.req.Op {
			return problem("rank %d calls %s, rank %d calls %s: every learner must make the same lmdbio calls in the same order",
				first.rank, first.req.Op, c.rank, c.req.Op)
		}
	}
	switch p.Op {
	case OpOpen:
		return proposeOpen(calls)
	case OpAllreduce:
		p.Count = len(first.req.Values)
		p.Sums = make([]uint64, p.Count)
		for _, c := range calls {
			if len(c.req.Values) != p.Count {
				return problem("rank %d sums %d values, rank %d %d: every learner must pass as many", first.rank, p.Count, c.rank, len(c.req.Values))
			}
			for i, v := range c.req.Values {
				p.Sums[i] += v // modulo 2^64
			}
		}
	}
	return p
}

// proposeOpen checks that the node's learners open alike.
func proposeOpen(calls []call) proposal {
	first := calls[0].req
	p := proposal{Op: OpOpen, Path: first.Path, Options: first.Options}
	for _, c := range calls {
		if r := c.req.Refused; r != nil {
			return proposal{Op: OpOpen, Problem: newError(r.Kind, r.Message)}
		}
	}
	for _, c := range calls[1:] {
		switch {
		case c.req.Path != first.Path:
			return proposal{Op: OpOpen, Problem: newError(failure.Argument, fmt.Sprintf(
				"rank %d opens %s, rank %d opens %s: every learner must open the same dataset", calls[0].rank, first.Path, c.rank, c.req.Path))}
		case c.req.Options != first.Options:
			return proposal{Op: OpOpen, Problem: newError(failure.Argument, fmt.Sprintf(
				"rank %d opens %s with %q, rank %d with %q: every learner must open it with the same options",
				calls[0].rank, first.Path, first.Options, c.rank, c.req.Options))}
		}
	}
	if _, err := loaderopts.Parse(first.Options); err != nil {
		return proposal{Op: OpOpen, Problem: newError(failure.KindOf(err), err.Error())}
	}
	return p
}

// outcome is what every agent does after a round.
type outcome struct {
	done bool   // every learner of the job has exited
	err  *Error // the answer to every pending call
	open *proposal
	sums []uint64
}

// decide turns every node's proposal, by node, into the round's outcome.
// Every agent decides alike from the same proposals.
func decide(props []proposal) outcome {
	first := props[0]
	where := func(node int) string {
		if len(props) == 1 {
			return ""
		}
		return fmt.Sprintf("node %d: ", node)
	}
	for node, p := range props {
		if p.Problem != nil {
			return outcome{err: newError(p.Problem.Kind, where(node)+p.Problem.Message)}
		}
	}
	for node, p := range props[1:] {
		if p.Op != first.Op {
			return outcome{err: newError(failure.Argument, fmt.Sprintf("the learners of node 0 %s, those of node %d %s: every learner must make the same lmdbio calls in the same order",
				doing(first.Op), node+1, doing(p.Op)))}
		}
	}
	switch first.Op {
	case opDone:
		return outcome{done: true}
	case OpOpen:
		for node, p := range props[1:] {
			if p.Path != first.Path || p.Options != first.Options {
				return outcome{err: newError(failure.Argument, fmt.Sprintf("node 0 opens %s with %q, node %d %s with %q: every learner must open the same dataset with the same options",
					first.Path, first.Options, node+1, p.Path, p.Options))}
			}
		}
		return outcome{open: &first}
	case OpAllreduce:
		sums := make([]uint64, first.Count)
		for node, p := range props {
			if p.Count != first.Count || len(p.Sums) != p.Count {
				return outcome{err: newError(failure.Argument, fmt.Sprintf("node 0's learners sum %d values, node %d's %d: every learner must pass as many",
					first.Count, node, p.Count))}
			}
			for i, v := range p.Sums {
				sums[i] += v
			}
		}
		return outcome{sums: sums}
	}
	return outcome{err: newError(failure.Runtime, fmt.Sprintf("agent: a round of unknown call %q", first.Op))}
}

func doing(op string) string {
	if op == opDone {
		return "have exited"
	}
	return "call " + op
}

// decodeProposals reads the proposals the agents exchanged.
func decodeProposals(all [][]byte) ([]proposal, error) {
	props := make([]proposal, len(all))
	for i, b := range all {
		if err := strict(b, &props[i]); err != nil {
			return nil, fmt.Errorf("node %d's proposal: %w", i, err)
		}
		switch p := props[i]; {
		case p.Op != opDone && p.Op != OpOpen && p.Op != OpAllreduce,
			p.Problem != nil && !p.Problem.valid(),
			p.Count < 0 || p.Count > MaxValues:
			return nil, fmt.Errorf("%w: node %d's proposal", ErrProtocol, i)
		}
	}
	if len(props) == 0 {
		return nil, fmt.Errorf("%w: no proposals", ErrProtocol)
	}
	return props, nil
}

func encodeProposal(p proposal) []byte {
	b, _ := json.Marshal(p) // plain data: it always marshals
	return b
}
