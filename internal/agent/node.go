package agent

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// Session is a dataset served to the learners of every node: a
// *loader.Server.
type Session interface {
	Socket() string                    // where the node's learners attach
	Start(timeout time.Duration) error // collective: once every learner attached, run
	Close() error                      // once the node's learners have closed
}

// Config is what a Node needs of its agent.
type Config struct {
	Node, Nodes, Learners int // this node, the nodes, learners per node

	// Exchange gives every agent every agent's bytes, by node. It is
	// collective over the agents; each round calls it once.
	Exchange func(mine []byte) ([][]byte, error)
	// Serve opens path for the learners of every node (loader.Serve).
	// It is collective over the agents.
	Serve func(path string, opt loader.Options, learners int) (Session, error)
	// AttachTimeout bounds how long Start waits for the node's learners to
	// attach to a session.
	AttachTimeout time.Duration
	// SessionFailed learns of a session that failed once it ran: a
	// learner that left it without closing its loader, a node reader's
	// failure, learners that never attached. It runs on a goroutine of its
	// own, and Run waits for it; the learners have been told already.
	SessionFailed func(path string, err error)
}

// Node runs the calls of one node's learners in rounds with the other
// nodes' agents (see the package's overview).
type Node struct {
	cfg      Config
	listener *Listener
	opened   uint64 // sessions served so far; the last one's number
	events   <-chan event
	exits    chan int
	learners []learner
	sessions sync.WaitGroup
}

// learner is the Node's view of one local learner.
type learner struct {
	conn   *learnerConn
	calls  []Request // made and not yet answered, in order
	exited bool      // its process ended: it makes no more calls
}

// NewNode makes the Node of the learners l accepts.
func NewNode(cfg Config, l *Listener) *Node {
	return &Node{cfg: cfg, listener: l, events: l.events, exits: make(chan int, cfg.Learners), learners: make([]learner, cfg.Learners)}
}

// Exited tells the Node that learner local's process has ended: it makes
// no more calls. Safe from any goroutine.
func (n *Node) Exited(local int) { n.exits <- local }

// Run runs rounds until the learners of every node have exited, and
// returns once the node's sessions are closed. Its error is a failure of
// the exchange between the agents, after which no round can be agreed on.
func (n *Node) Run() error {
	defer n.sessions.Wait()
	for {
		n.waitReady()
		props, err := n.exchange(n.proposal())
		if err != nil {
			return err
		}
		o := decide(props)
		switch {
		case o.done:
			return nil
		case o.err != nil:
			n.answer(func(int) Reply { return Reply{Error: o.err} })
		case o.open != nil:
			n.open(o.open.Path, o.open.Options)
		default:
			n.answer(func(int) Reply { return Reply{Values: o.sums} })
		}
	}
}

// waitReady takes events until every learner has made its next call or
// has exited.
func (n *Node) waitReady() {
	for !n.ready() {
		select {
		case ev := <-n.events:
			n.take(ev)
		case local := <-n.exits:
			if local >= 0 && local < len(n.learners) {
				n.learners[local].exited = true
				n.learners[local].calls = nil
			}
		}
	}
}

func (n *Node) ready() bool {
	for _, l := range n.learners {
		if !l.exited && len(l.calls) == 0 {
			return false
		}
	}
	return true
}

// take records a learner's call, or the end of its connection: calls it
// left unanswered have no one to answer.
func (n *Node) take(ev event) {
	l := &n.learners[ev.conn.local]
	switch {
	case ev.end:
		if l.conn == ev.conn {
			l.conn, l.calls = nil, nil
		}
	case l.exited:
		_ = ev.conn.reply(Reply{Error: newError(failure.Argument, "the learner of this local rank has exited")})
	default:
		l.conn = ev.conn
		l.calls = append(l.calls, ev.req)
	}
}

// proposal is the node's proposal for the next round.
func (n *Node) proposal() proposal {
	var calls []call
	var exited []int
	for local, l := range n.learners {
		rank := n.cfg.Node*n.cfg.Learners + local
		if l.exited {
			exited = append(exited, rank)
		} else {
			calls = append(calls, call{rank: rank, req: l.calls[0]})
		}
	}
	sort.Ints(exited)
	return propose(calls, exited)
}

// exchange trades proposals with the other agents.
func (n *Node) exchange(p proposal) ([]proposal, error) {
	all, err := n.cfg.Exchange(encodeProposal(p))
	if err != nil {
		return nil, fmt.Errorf("agent: exchanging calls with the other agents: %w", err)
	}
	if len(all) != n.cfg.Nodes {
		return nil, fmt.Errorf("agent: %d proposals for %d nodes", len(all), n.cfg.Nodes)
	}
	return decodeProposals(all)
}

// answer answers every learner's pending call and takes it off.
func (n *Node) answer(reply func(local int) Reply) {
	for local := range n.learners {
		l := &n.learners[local]
		if len(l.calls) == 0 {
			continue
		}
		l.calls = l.calls[1:]
		_ = l.conn.reply(reply(local)) // fails only if the learner is gone
	}
}

// open serves path to the learners of every node: every agent opens it
// (collective), tells its learners where to attach, starts it once they
// have, and closes it once they have closed.
func (n *Node) open(path, options string) {
	opt, err := loaderopts.Parse(options) // checked in the proposal
	var s Session
	if err == nil {
		s, err = n.cfg.Serve(path, opt, n.cfg.Learners)
	}
	if err != nil {
		e := newError(failure.KindOf(err), err.Error()) // the learner puts the path in front
		n.answer(func(int) Reply { return Reply{Error: e} })
		return
	}
	n.opened++
	id := n.opened
	for local, l := range n.learners {
		if len(l.calls) > 0 {
			n.listener.opened(local, id, path)
		}
	}
	n.answer(func(int) Reply { return Reply{Socket: s.Socket(), Session: id} })
	if err := s.Start(n.cfg.AttachTimeout); err != nil {
		_ = s.Close()
		n.sessions.Go(func() { n.failed(path, err) })
		return
	}
	n.sessions.Go(func() {
		if err := s.Close(); err != nil {
			n.failed(path, err)
		}
	})
}

func (n *Node) failed(path string, err error) {
	if n.cfg.SessionFailed != nil {
		n.cfg.SessionFailed(path, err)
	}
}
