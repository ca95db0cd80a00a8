package exchange

import "fmt"

// inbox receives an exchange's messages into buffers of its own, reused
// from exchange to exchange, and writes each into the receive region with
// pwrite as it arrives. MPI's copy into the region through the node
// reader's mapping would fault every page of it into the node reader,
// which never reads them; pwrite does not, and is far cheaper
// (docs/decisions/0009-exchange-memory-and-polling.md). Each peer's
// messages are received in the order it sends them (MPI keeps the messages
// of a pair in order), cut from its stream as it cuts them (see cutter),
// and every peer with bytes left always has a receive posted, so a sender
// waiting for a message to go never waits for a receive nobody posts.
// Without a file for the region, messages are received in place.
type inbox struct {
	tr      Transport
	piece   int
	perPeer int      // buffers per peer
	bufs    [][]byte // one per slot, of a piece each (New)
	op      *Op
	next    []int    // by node: where in op.Recv its next message goes
	cuts    []cutter // by node: its stream's messages
	slots   []recvSlot
}

// recvSlot is a receive in flight: a message from peer, bound for op.Recv[at:].
type recvSlot struct {
	peer int
	req  Request
	buf  []byte
	at   int
}

func newInbox(tr Transport, piece int) inbox {
	peers := max(1, tr.Size()-1)
	return inbox{tr: tr, piece: piece, perPeer: max(1, min(4, inboxBytes/(peers*piece)))}
}

// start posts op's first receives: perPeer messages from every peer (each
// sends at least its control word).
func (in *inbox) start(op *Op) error {
	in.op, in.slots = op, in.slots[:0]
	in.next = append(in.next[:0], op.RecvDispls...)
	in.cuts = in.cuts[:0]
	for n := range op.RecvCounts {
		lens := append([]int{ControlBytes}, op.RecvLens[n]...)
		in.cuts = append(in.cuts, cutter{lens: lens, piece: in.piece})
		if n == in.tr.Rank() {
			continue
		}
		for range in.perPeer {
			in.slots = append(in.slots, recvSlot{peer: n})
		}
	}
	for i := range in.slots {
		if err := in.post(i); err != nil {
			return err
		}
	}
	return nil
}

// post receives the next message of slot i's peer, if it has one left.
func (in *inbox) post(i int) error {
	s, op := &in.slots[i], in.op
	s.req = nil
	m, ok := in.cuts[s.peer].next()
	if !ok {
		return nil
	}
	n := m.n
	s.at = in.next[s.peer]
	in.next[s.peer] += n
	if op.RecvFile == nil {
		s.buf = op.Recv[s.at : s.at+n]
	} else {
		s.buf = in.bufs[i][:n]
	}
	var err error
	s.req, err = in.tr.Irecv(s.buf, s.peer, exchangeTag)
	return err
}

// test tests every receive once, lands the messages that arrived and posts
// the next ones; it says whether any arrived and whether any is pending.
func (in *inbox) test() (moved, more bool, err error) {
	for i := range in.slots {
		s := &in.slots[i]
		if s.req == nil {
			continue
		}
		done, err := s.req.Test()
		if err != nil {
			return moved, true, err
		}
		if done {
			moved = true
			if err := in.land(s); err != nil {
				return moved, true, err
			}
			if err := in.post(i); err != nil {
				return moved, true, err
			}
		}
		more = more || s.req != nil
	}
	return moved, more, nil
}

// land writes a received message into its place.
func (in *inbox) land(s *recvSlot) error {
	op := in.op
	if op.RecvFile == nil {
		return nil
	}
	if _, err := op.RecvFile.WriteAt(s.buf, op.RecvAt+int64(s.at)); err != nil {
		return fmt.Errorf("writing a received message into shared memory: %w", err)
	}
	return nil
}

// cancel withdraws the receives in flight.
func (in *inbox) cancel() {
	for i := range in.slots {
		if r := in.slots[i].req; r != nil {
			r.Cancel()
			_, _ = r.Wait()
			in.slots[i].req = nil
		}
	}
}
