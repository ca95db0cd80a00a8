package main

import (
	"fmt"
	"slices"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
)

// benchStepKind says what one step of a bench run measures.
type benchStepKind int

const (
	stepLimit     benchStepKind = iota // the limit probes of the data file on rank 0
	stepMode                           // the loader in one mode on the first ranks of the job
	stepPeer                           // another loader, as subprocesses
	stepWarmUp                         // an untimed read that brings the data file into the page cache
	stepSynthetic                      // batches from memory and emulated compute only (lmdbio-bench stall)
)

// benchStep is one measurement. Every rank walks the same list of steps, so
// the collectives of a step line up on all of them.
type benchStep struct {
	kind     benchStepKind
	round    int // from 1
	cache    string
	ranks    int // ranks taking part (mode and caffe steps)
	mode     benchMode
	peer     string
	consumer bench.ConsumerKind
}

func (s benchStep) String() string {
	switch s.kind {
	case stepLimit:
		return fmt.Sprintf("round %d %s: storage limit", s.round, s.cache)
	case stepPeer:
		return fmt.Sprintf("round %d %s: peer %s (%d ranks, %s)", s.round, s.cache, s.peer, s.ranks, s.consumer)
	case stepWarmUp:
		return fmt.Sprintf("round %d: warming the page cache", s.round)
	case stepSynthetic:
		return fmt.Sprintf("round %d: synthetic data in memory on %d ranks", s.round, s.ranks)
	default:
		return fmt.Sprintf("round %d %s: %s on %d ranks (%s)", s.round, s.cache, s.mode.name, s.ranks, s.consumer)
	}
}

// benchSchedule lists the steps of a run. Each round measures, per cache
// state, the limit first (it also warms the cache for the warm state) and
// then every contender once with every consumer: each mode at each rank
// count, the per-rank peers at each rank count, the single-process peers
// once. Contenders compared with each other (those of one rank count, with
// torch-lmdbio at the job's size; the single-process peers) run one after
// another, in an order that changes from round to round so that each of
// two contenders runs before the other in as many rounds as after it (see
// balancedOrder). Which of two runs goes first matters: the second of two
// cold runs in a row is slower
// (docs/decisions/0014-bench-order-and-paired-ratios.md).
func benchSchedule(cfg benchConfig, ranks []int, world int) []benchStep {
	var steps []benchStep
	for round := 1; round <= cfg.rounds; round++ {
		for _, cache := range cfg.caches {
			steps = append(steps, benchStep{kind: stepLimit, round: round, cache: cache, ranks: 1})
			var group []benchStep
			add := func(s benchStep) {
				for _, c := range cfg.consumers {
					s.consumer = c
					group = append(group, s)
				}
			}
			flush := func() {
				steps = append(steps, balancedOrder(group, round)...)
				group = nil
			}
			for _, n := range ranks {
				for _, m := range cfg.modes {
					add(benchStep{kind: stepMode, round: round, cache: cache, ranks: n, mode: m})
				}
				for _, p := range cfg.peers {
					if peerRunsAt(p, n, world) {
						add(benchStep{kind: stepPeer, round: round, cache: cache, ranks: n, peer: p})
					}
				}
				flush()
			}
			for _, p := range cfg.peers {
				if !slices.ContainsFunc(ranks, func(n int) bool { return peerRunsAt(p, n, world) }) {
					add(benchStep{kind: stepPeer, round: round, cache: cache, ranks: 1, peer: p})
				}
			}
			flush()
		}
	}
	return steps
}

// peerRunsAt reports whether peer p runs with the modes at rank count n of
// a job of world ranks: a peer per rank at every count, and torch-lmdbio,
// whose learners are as many as the job's ranks, at the job's size, with
// the default mode it is compared with. The other peers run once a round,
// as a group of their own.
func peerRunsAt(p string, n, world int) bool {
	return benchPeerPerRank(p) || p == "torch-lmdbio" && n == world
}

// balancedOrder is the order of group in round (from 1): rotated by one
// from round to round, and reversed in every other cycle of len(group)
// rounds. Rotation alone puts each contender first equally often, but two
// contenders k apart run in one order in all but k of every len(group)
// rounds; the reversed cycles give them the other order as often, so over
// 2×len(group) rounds each runs before the other as often as after it (for
// two contenders, every two rounds).
func balancedOrder(group []benchStep, round int) []benchStep {
	n := len(group)
	if n == 0 {
		return nil
	}
	k, cycle := (round-1)%n, (round-1)/n
	out := make([]benchStep, 0, n)
	out = append(append(out, group[k:]...), group[:k]...)
	if cycle%2 == 1 {
		slices.Reverse(out)
	}
	return out
}

// benchRanks is the list of rank counts to measure: --ranks, else the job's
// size, else (with a workload, to search for the most accelerators) every
// count from 1 to the job's size.
func benchRanks(cfg benchConfig, worldSize int) ([]int, error) {
	if cfg.wholeJob {
		return []int{worldSize}, nil
	}
	if cfg.ranks != nil {
		for _, n := range cfg.ranks {
			if n > worldSize {
				return nil, cli.Usagef("--ranks %d: the job has only %d ranks (start it with lmdbio run -n %d)", n, worldSize, n)
			}
		}
		return cfg.ranks, nil
	}
	if cfg.workload.Enabled() {
		all := make([]int, worldSize)
		for i := range all {
			all[i] = i + 1
		}
		return all, nil
	}
	return []int{worldSize}, nil
}
