package schedule

import "github.com/lmdbio/lmdbio/pkg/assign"

// Windows cuts the rounds of e from first on into windows. A window grows
// round by round while no node needs more than slot bytes of arena for it
// (see Need); a round that alone needs more than slot is a window of its
// own. A window also ends before round r when cut(start, r), start being
// the window's first round (cut may be nil; see ReadyCut).
func (l *Layout) Windows(e *assign.Epoch, first int, slot int64, cut func(start, r int) bool) []Window {
	c := newCounter(l)
	var out []Window
	cur := Window{First: first, End: first}
	for r := first; r < e.Rounds(); r++ {
		fits := c.add(e, r, slot, false)
		if cur.Rounds() > 0 && (!fits || cut != nil && cut(cur.First, r)) {
			out = append(out, cur)
			cur = Window{First: r, End: r}
			c.reset()
		}
		c.add(e, r, slot, true)
		cur.End = r + 1
	}
	if cur.Rounds() > 0 {
		out = append(out, cur)
	}
	return out
}

// Need returns the arena bytes every node needs for window w, by node.
func (l *Layout) Need(e *assign.Epoch, w Window) []int64 {
	c := newCounter(l)
	for r := w.First; r < w.End; r++ {
		c.add(e, r, 0, true)
	}
	return c.bytes
}

// counter adds up what the nodes need for a growing window. A block read
// into the arena counts once per window: stamp marks the blocks counted in
// the current window.
type counter struct {
	l      *Layout
	bytes  []int64 // per node, committed
	delta  []int64 // per node, for the round being tried
	stamp  []int32 // per block: window generation that counted it, 0 none
	gen    int32
	marked []int32 // blocks of the round being tried, to stamp on commit
	// foreign counts the blocks nodes read that they do not own (Local
	// layouts: share edges, padding), by node and block, in this window.
	foreign, tried map[[2]int32]bool
}

func newCounter(l *Layout) *counter {
	return &counter{l: l, bytes: make([]int64, l.Nodes), delta: make([]int64, l.Nodes),
		stamp: make([]int32, len(l.BlockOwner)), gen: 1, foreign: map[[2]int32]bool{}, tried: map[[2]int32]bool{}}
}

// reset starts a new window.
func (c *counter) reset() {
	clear(c.bytes)
	clear(c.foreign)
	c.gen++
}

// add works out what round r adds to every node's need. With commit it
// adds it and reports true; without, it reports whether it fits in slot.
func (c *counter) add(e *assign.Epoch, r int, slot int64, commit bool) bool {
	l := c.l
	clear(c.delta)
	clear(c.tried)
	c.marked = c.marked[:0]
	for d := range e.Nodes() {
		for local := range e.NodeSize(d) {
			for _, p := range e.Batch(d, local, r) {
				c.delta[d] += l.PosMeta[p]
				b := l.PosBlock[p]
				src := l.producer(p, d)
				switch {
				case src != d:
					c.delta[d] += l.PosBytes[p]
				case int(l.BlockOwner[b]) != d:
					key := [2]int32{int32(d), b}
					if !c.foreign[key] && !c.tried[key] {
						c.tried[key] = true
						c.delta[d] += l.BlockCost[b]
					}
					continue
				}
				if !l.BlockCached[b] && c.stamp[b] != c.gen && c.stamp[b] != -c.gen {
					c.stamp[b] = -c.gen // counted for this round, not yet committed
					c.marked = append(c.marked, b)
					c.delta[src] += l.BlockCost[b]
				}
			}
		}
	}
	fits := true
	for n := range c.delta {
		if commit {
			c.bytes[n] += c.delta[n]
		} else if c.bytes[n]+c.delta[n] > slot {
			fits = false
		}
	}
	for _, b := range c.marked {
		if commit {
			c.stamp[b] = c.gen
		} else {
			c.stamp[b] = 0
		}
	}
	if commit {
		for key := range c.tried {
			c.foreign[key] = true
		}
	}
	return fits
}

// MaxRoundNeed is the most arena bytes any node needs for a single round
// of e from round first on: a window must have room for at least that.
func (l *Layout) MaxRoundNeed(e *assign.Epoch, first int) int64 {
	c := newCounter(l)
	var most int64
	for r := first; r < e.Rounds(); r++ {
		c.reset()
		c.add(e, r, 0, true)
		for _, b := range c.bytes {
			most = max(most, b)
		}
	}
	return most
}
