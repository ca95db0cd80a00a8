package exchange

// sendRing holds the buffers small values are packed into, used in turn:
// a buffer is reused once the send of its last message completed. The memory
// is bounded and stays mapped (one buffer for a whole window's sends was
// faulted in anew each time it grew, on the first epochs' critical path).
type sendRing struct {
	bufs [sendPieces][]byte  // of a piece each (New)
	reqs [sendPieces]Request // the send of each buffer's message, nil when done
	next int
}

// sendPieces is the number of packed messages a node reader may have in
// flight.
const sendPieces = 16

// take returns the next buffer, once wait says its last send completed.
func (r *sendRing) take(wait func(Request) error) ([]byte, error) {
	i := r.next
	if r.reqs[i] != nil {
		if err := wait(r.reqs[i]); err != nil {
			return nil, err
		}
		r.reqs[i] = nil
	}
	return r.bufs[i], nil
}

// hold records the send of the buffer take returned last.
func (r *sendRing) hold(req Request) {
	r.reqs[r.next] = req
	r.next = (r.next + 1) % sendPieces
}

// outstanding hands over the sends not known to be complete.
func (r *sendRing) outstanding() []Request {
	var out []Request
	for i, req := range r.reqs {
		if req != nil {
			out = append(out, req)
			r.reqs[i] = nil
		}
	}
	return out
}

// sender is one peer's part of an exchange: its control word, then its
// records' values, as the messages cutter makes of them.
type sender struct {
	parts []Part // the control word first
	cut   cutter
}

func newSender(ctl []byte, parts []Part, piece int) sender {
	s := sender{parts: append([]Part{{Value: ctl}}, parts...)}
	lens := make([]int, len(s.parts))
	for i, p := range s.parts {
		lens[i] = len(p.Value)
	}
	s.cut = cutter{lens: lens, piece: piece}
	return s
}

func (s *sender) done() bool { return s.cut.part == len(s.cut.lens) }
