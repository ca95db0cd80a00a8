package loader

import (
	"context"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/schedule"
)

// earlyShare bounds the room a node keeps for records received early: at
// most 1/earlyShare of its cache, and only memory its cache budget leaves
// over (0 turns the early exchange off).
var earlyShare int64 = 4

// earlyEpochs bounds the epochs after the fill whose crossing records go
// early: each is built at Open, and each takes a few per cent of the cache
// in room (the share of a global batch that no balance keeps on its node).
const earlyEpochs = 4

// early is the node reader's part of the early exchanges (see
// schedule.Early): the records that cross between nodes in the epochs
// after the one that fills the caches, sent during the fill, and kept on
// arrival in room after the node's cache, where those epochs' batches
// point.
type early struct {
	epoch int // the first epoch whose records go early; the split's Epochs() follow
	split *schedule.Early
	at    map[int32]earlyAt // where each record received early lies
	base  []int64           // each early exchange's receive region in the cache segment
	size  []int64
	ops   []*exchangeOp // the early exchanges, made as the fill windows are
	bytes int64         // the receive room, after the cache's own bytes
}

// earlyAt is where a record received early lies in the cache segment, and
// the early exchange that brings it.
type earlyAt struct {
	off int64
	op  int
}

// room is the cache segment's bytes after the cache's own.
func (x *early) room() int64 {
	if x == nil {
		return 0
	}
	return x.bytes
}

// index is epoch's place among the epochs whose records go early, false
// for none.
func (x *early) index(epoch int) (int, bool) {
	if x == nil || epoch < x.epoch || epoch >= x.epoch+x.split.Epochs() {
		return 0, false
	}
	return epoch - x.epoch, true
}

// planEarly splits off the crossing records of up to earlyEpochs epochs
// after the one that fills the caches, when there are any. spare is every
// node's memory left over by its cache budget. The receive regions are
// laid out as the exchanges fill them: per exchange, per source node, a
// control word and the values.
func (ix *indexProducer) planEarly(spare []int64) error {
	p, s := ix.plan, ix.plan.layout
	fill := p.firstEpoch()
	if earlyShare <= 0 || fill+1 >= ix.opt.Epochs {
		return nil
	}
	for e := fill + 1; e < min(ix.opt.Epochs, fill+1+earlyEpochs); e++ {
		next, _, err := p.epoch(e)
		if err != nil {
			return err
		}
		p.ahead = append(p.ahead, next) // built once: production asks for them again
	}
	wins := p.windows(fill, p.first.ep, p.first.from, ix.slot)
	room := make([]int64, s.Nodes)
	for d := range room {
		room[d] = max(0, min(spare[d], p.cacheUsed[d]/earlyShare)-int64(ctlBytes*s.Nodes*len(wins)))
	}
	x := &early{epoch: fill + 1, split: s.Early(p.first.ep, wins, p.ahead, room, ix.node), at: map[int32]earlyAt{},
		base: make([]int64, len(wins)), size: make([]int64, len(wins)), ops: make([]*exchangeOp, len(wins))}
	at := p.cache.Bytes
	for k := range wins {
		if !x.split.Busy[k] {
			continue
		}
		x.base[k] = at
		for _, list := range x.split.Recv[k] {
			at += ctlBytes
			for _, pos := range list {
				x.at[pos] = earlyAt{off: at, op: k}
				at += s.PosBytes[pos]
			}
		}
		x.size[k] = at - x.base[k]
	}
	x.bytes = at - p.cache.Bytes
	ix.early = x
	return nil
}

// sendEarly queues the early exchange that follows window k of epoch, if
// one does: its records come from the cache, loaded by then or being
// loaded, and land in the room after it. It goes before the window's own
// exchange: its records go in the order the owners read them, so it moves
// while they are read, where the window's batches wait for records from
// all over the owners' shares.
func (ix *indexProducer) sendEarly(ctx context.Context, epoch, k, no int, xq chan<- *exchangeOp) error {
	x := ix.early
	if x == nil || epoch != x.epoch-1 || !x.split.Busy[k] {
		return nil
	}
	p := ix.plan
	work := schedule.Work{Send: x.split.Send[k], Recv: x.split.Recv[k]}
	loc := map[int32]where{}
	for _, list := range work.Send {
		for _, pos := range list {
			b := p.layout.PosBlock[pos]
			if loc[b] = ix.cached(b); loc[b].done == nil {
				return fmt.Errorf("loader: block %d is to be sent early before it is loaded", b)
			}
		}
	}
	op := ix.exchangeOp(work, loc, segCache, x.base[k], x.size[k], no, ix.stats.epoch(epoch))
	x.ops[k] = op
	return sendCtx(ctx, xq, op)
}

// trim drops from a window's work in epoch the records that went early.
func (x *early) trim(epoch int, w schedule.Work) schedule.Work {
	i, ok := x.index(epoch)
	if !ok {
		return w
	}
	return x.split.Trim(i, w)
}

// received says where record position pos of epoch lies when it came
// early, and the exchange that brought it.
func (x *early) received(epoch int, pos int32) (off int64, op *exchangeOp, ok bool) {
	i, ok := x.index(epoch)
	if !ok || !x.split.Went(i, pos) {
		return 0, nil, false
	}
	a := x.at[pos]
	return a.off, x.ops[a.op], true
}
