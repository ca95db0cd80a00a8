package loader

import (
	"fmt"
	"slices"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// The epochs of a run plan: the population an epoch is cut from, and each
// epoch's assignment, also of a resumed run.

// population is the positions an epoch's order is drawn from, in the order
// that shuffle none keeps: the records' key order, as LMDB's cursor walks
// them (records are numbered in key order), so that a run compares with a
// reader that walks the cursor. Within a leaf page LMDB stores values from
// the page's end down, so the file's order (shuffle file, and the order the
// other shuffles are drawn from) reverses keys within every page; the node
// reader still reads by windows, in file order, and hands a window's
// records out in key order. Where the keys were inserted in their order,
// a window's records are a few neighbouring pages; where they were not,
// the records of a window are scattered over the file.
func (p *runPlan) population() []int32 {
	if p.keyPos != nil {
		return p.keyPos
	}
	return identityPositions(p.n)
}

// epoch builds epoch e's assignment and says at which round it starts: 0,
// or where a resumed run left off.
func (p *runPlan) epoch(e int) (*assign.Epoch, int, error) {
	if p.first.ep != nil && e == p.firstEpoch() {
		return p.first.ep, p.first.from, nil
	}
	if i := e - p.firstEpoch() - 1; i >= 0 && i < len(p.ahead) {
		return p.ahead[i], 0, nil
	}
	if r := p.resume; r != nil && e == r.Epoch && r.GlobalBatches > 0 && !p.sameWorld(r) && !p.opt.Shuffle.WorldIndependent() {
		ep, err := p.remainder(r)
		return ep, 0, err
	}
	ep, err := p.build(e, p.population(), p.batching)
	if r := p.resume; err == nil && r != nil && e == r.Epoch {
		err = r.fits(ep.Rounds())
		return ep, r.GlobalBatches, err
	}
	return ep, 0, err
}

func (p *runPlan) build(e int, pop []int32, l assign.Layout) (*assign.Epoch, error) {
	switch p.opt.Shuffle {
	case sampler.None, sampler.File:
		return assign.Sequential(pop, l)
	case sampler.Local:
		return assign.Local(pop, l, p.opt.Seed, e)
	}
	var owners assign.Owners
	if p.opt.Locality == On {
		owners = p.layout.Owners()
	}
	return assign.Ordered(sampler.Order(p.samplerOptions(), e, p.n, p.cuts), l, owners)
}

// firstEpoch is the epoch the run starts in.
func (p *runPlan) firstEpoch() int {
	if p.resume != nil {
		return p.resume.Epoch
	}
	return 0
}

// sameWorld reports whether a saved state was made with this run's
// learners per node.
func (p *runPlan) sameWorld(r *State) bool { return slices.Equal(r.NodeSizes, p.batching.NodeSizes) }

// remainder is the rest of a resumed epoch whose order depends on the
// world (None, Local) when the world changed: the records the saved run
// had not delivered, shared out among this run's learners.
func (p *runPlan) remainder(r *State) (*assign.Epoch, error) {
	old, err := p.build(r.Epoch, p.population(), assign.Layout{Batch: r.GlobalBatch / sum(r.NodeSizes),
		NodeSizes: r.NodeSizes, Remainder: p.opt.Remainder})
	if err != nil {
		return nil, fmt.Errorf("%w: the saved run's layout: %v", ErrBadInput, err)
	}
	if err := r.fits(old.Rounds()); err != nil {
		return nil, err
	}
	done := make([]bool, p.n)
	for round := range r.GlobalBatches {
		for _, q := range old.Global(round) {
			done[q] = true
		}
	}
	var rest []int32
	for _, q := range p.population() {
		if !done[q] {
			rest = append(rest, q)
		}
	}
	l := p.batching
	if l.Remainder == assign.Pad && len(rest) < l.GlobalBatch() {
		l.Remainder = assign.Keep // too few left to pad a round
	}
	return p.build(r.Epoch, rest, l)
}

func identityPositions(n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	return p
}
