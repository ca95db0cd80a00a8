package exchangetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/lmdbio/lmdbio/internal/exchange"
)

// Network is a group of nodes in one process that send each other
// messages.
type Network struct {
	mu    sync.Mutex
	nodes int
	sends [][]*request // by destination: sends no receive took yet, in order
	recvs [][]*request // by receiver: receives no message came to yet, in order
	fails map[int]int  // by node: the sends left before one fails
}

// NewNetwork returns a network of nodes nodes.
func NewNetwork(nodes int) *Network {
	return &Network{nodes: nodes, sends: make([][]*request, nodes), recvs: make([][]*request, nodes), fails: map[int]int{}}
}

// Node returns node rank's transport.
func (n *Network) Node(rank int) exchange.Transport { return node{n, rank} }

// ErrRefused is what a send fails with after FailSend.
var ErrRefused = errors.New("exchangetest: the network refused the send")

// FailSend makes node rank's send that follows the next after ones fail
// with ErrRefused; the sends after it go again.
func (n *Network) FailSend(rank, after int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fails[rank] = after
}

// Posted is the number of receives node rank posted that neither took a
// message nor were cancelled.
func (n *Network) Posted(rank int) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.recvs[rank])
}

// node is one node's transport.
type node struct {
	net  *Network
	rank int
}

func (t node) Rank() int { return t.rank }
func (t node) Size() int { return t.net.nodes }

// Isend posts a send of buf to peer: it completes when a receive of peer
// takes it.
func (t node) Isend(buf []byte, peer, tag int) (exchange.Request, error) {
	n := t.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if peer < 0 || peer >= n.nodes {
		return nil, fmt.Errorf("exchangetest: node %d sends to node %d of %d", t.rank, peer, n.nodes)
	}
	if left, ok := n.fails[t.rank]; ok {
		if left == 0 {
			delete(n.fails, t.rank)
			return nil, ErrRefused
		}
		n.fails[t.rank] = left - 1
	}
	s := newRequest(n, t.rank, peer, tag, buf)
	for i, r := range n.recvs[peer] {
		if r.matches(t.rank, tag) {
			n.recvs[peer] = slices.Delete(n.recvs[peer], i, i+1)
			deliver(s, r)
			return s, nil
		}
	}
	n.sends[peer] = append(n.sends[peer], s)
	return s, nil
}

// Irecv posts a receive from peer (or exchange.AnySource) into buf: it
// takes the first message sent to this node that it matches.
func (t node) Irecv(buf []byte, peer, tag int) (exchange.Request, error) {
	n := t.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if peer != exchange.AnySource && (peer < 0 || peer >= n.nodes) {
		return nil, fmt.Errorf("exchangetest: node %d receives from node %d of %d", t.rank, peer, n.nodes)
	}
	r := newRequest(n, peer, t.rank, tag, buf)
	for i, s := range n.sends[t.rank] {
		if r.matches(s.from, s.tag) {
			n.sends[t.rank] = slices.Delete(n.sends[t.rank], i, i+1)
			deliver(s, r)
			return r, nil
		}
	}
	n.recvs[t.rank] = append(n.recvs[t.rank], r)
	return r, nil
}

// deliver copies send s into receive r and completes both; the network's
// lock is held.
func deliver(s, r *request) {
	if len(s.buf) > len(r.buf) {
		r.complete(exchange.Status{}, fmt.Errorf("exchangetest: a message of %d bytes from node %d to node %d for a receive of %d",
			len(s.buf), s.from, s.to, len(r.buf)))
	} else {
		r.complete(exchange.Status{Source: s.from, Count: copy(r.buf, s.buf)}, nil)
	}
	s.complete(exchange.Status{}, nil)
}

// request is a send (from a node to another) or a receive (to a node, from
// a node or AnySource).
type request struct {
	net      *Network
	from, to int
	tag      int
	buf      []byte
	done     chan struct{} // closed once it completed
	st       exchange.Status
	err      error
}

func newRequest(n *Network, from, to, tag int, buf []byte) *request {
	return &request{net: n, from: from, to: to, tag: tag, buf: buf, done: make(chan struct{})}
}

// matches reports whether receive r takes a message from node from with tag.
func (r *request) matches(from, tag int) bool {
	return (r.from == exchange.AnySource || r.from == from) && r.tag == tag
}

// complete ends the request; the network's lock is held.
func (r *request) complete(st exchange.Status, err error) {
	r.st, r.err = st, err
	close(r.done)
}

func (r *request) completed() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *request) Test() (bool, error) {
	r.net.mu.Lock()
	defer r.net.mu.Unlock()
	if !r.completed() {
		return false, nil
	}
	return true, r.err
}

func (r *request) Wait() (exchange.Status, error) {
	<-r.done
	r.net.mu.Lock()
	defer r.net.mu.Unlock()
	return r.st, r.err
}

// Cancel withdraws a receive (or a send) no message matched yet.
func (r *request) Cancel() {
	n := r.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if r.completed() {
		return
	}
	n.recvs[r.to] = slices.DeleteFunc(n.recvs[r.to], func(q *request) bool { return q == r })
	n.sends[r.to] = slices.DeleteFunc(n.sends[r.to], func(q *request) bool { return q == r })
	r.complete(exchange.Status{}, errors.New("exchangetest: cancelled"))
}

// Free lets go of a send: it stays posted, and a receive may still take it.
func (r *request) Free() {}
