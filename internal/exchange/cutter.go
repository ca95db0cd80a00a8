package exchange

// pieceSize is the largest message of an exchange among nodes node
// readers: a node's part for a peer goes in messages of at most a piece,
// cut alike on both ends (see cutter), and each message that arrives tells
// poll that the exchange is moving. 1 MiB, or less where the inbox's
// buffers, one or more for every peer, would take more than inboxBytes;
// never below minPiece.
func pieceSize(nodes int) int {
	return max(minPiece, min(maxPiece, inboxBytes/max(1, nodes-1))&^(minPiece-1))
}

const (
	maxPiece   = 1 << 20
	minPiece   = 64 << 10
	inboxBytes = 8 << 20
)

// directFrom is the size from which a value travels in messages of its
// own, sent from where it lies in shared memory: MPI copies it once, into
// the receiver's buffer (with cross-memory attach the receiver reads the
// node reader's pages through the kernel, never through the node reader's
// mapping, which would pay a first touch for every page it had not met:
// docs/decisions/0009-exchange-memory-and-polling.md). Smaller values are
// packed together: they share pages, and a message each would cost more
// than the copy.
const directFrom = 16 << 10

// message is one message of a peer's stream (see cutter): n bytes of the
// stream, from byte offset of part first on. A direct message is a piece
// of one value; otherwise parts first to last, whole, packed together.
type message struct {
	first, last int
	offset, n   int
	direct      bool
}

// cutter cuts a peer's stream — its parts' bytes one after the other, the
// control word first — into the messages it travels in. Both ends of an
// exchange cut the same lengths the same way, so every receive is posted
// for exactly the message it gets: a value of at least directFrom bytes in
// pieces of at most piece bytes, smaller ones packed, at most piece bytes
// a message (piece is never below minPiece > directFrom, so a small value
// always fits one).
type cutter struct {
	lens         []int
	piece        int
	part, offset int // where the next message starts
}

// next returns the next message, or false once the stream is cut.
func (c *cutter) next() (message, bool) {
	if c.part == len(c.lens) {
		return message{}, false
	}
	m := message{first: c.part, offset: c.offset}
	if c.lens[c.part] >= directFrom {
		m.n, m.direct = min(c.piece, c.lens[c.part]-c.offset), true
		if c.offset += m.n; c.offset == c.lens[c.part] {
			c.part, c.offset = c.part+1, 0
		}
		m.last = c.part
		return m, true
	}
	for c.part < len(c.lens) && c.lens[c.part] < directFrom && m.n+c.lens[c.part] <= c.piece {
		m.n += c.lens[c.part]
		c.part++
	}
	m.last = c.part
	return m, true
}
