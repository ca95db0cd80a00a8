package loader

import (
	"context"
	"fmt"
	"time"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Server is a node reader that serves learners which are not ranks of its
// MPI job: processes it started itself (lmdbio run --agent), which attach
// through the node's socket. Every rank of the job is the node reader of
// its own node.
type Server struct {
	lead *leader
	t    *topology.Topology
}

// Reader is the former name of Server.
//
// Deprecated: use Server; "reader" in this package names the node reader
// of an MPI job, which a Server is one kind of.
type Reader = Server

// Serve opens path for learners learners on each node, on every rank of
// opt.Topology, which must each be alone on their node. It is collective,
// as Open is. It returns once the node reader is ready: the learners then
// Attach to Socket, and Start begins the run.
func Serve(path string, opt Options, learners int) (*Server, error) {
	if opt.Topology == nil {
		return nil, fmt.Errorf("loader: Options.Topology is required")
	}
	if opt.Mode != (Mode{}) && (opt.Mode.LMDB || !opt.Mode.LMM) {
		return nil, fmt.Errorf("%w: --mode %v: learners that are not MPI ranks read through a node reader (lmm or later)", ErrBadOption, opt.Mode)
	}
	t := opt.Topology
	alone := func(t *topology.Topology) (int, error) {
		if t.LocalSize != 1 {
			return 0, fmt.Errorf("%w: %d ranks on node %d: a node reader serving learners must be alone on its node", ErrBadOption, t.LocalSize, t.Node)
		}
		if learners < 1 || learners > 1<<16 {
			return 0, fmt.Errorf("%w: %d learners per node", ErrBadOption, learners)
		}
		return learners, nil
	}
	o := begin(path, opt, alone)
	o.agreeOptions() // Open's steps 1 to 4 (see open.go)
	o.shareDataset()
	o.shareSource()
	o.newNodeReader()
	if err := o.agreeOpened(); err != nil {
		if o.lead != nil {
			o.lead.closeParts()
		}
		return nil, err
	}
	return &Server{lead: o.lead, t: t}, nil
}

// Socket is the name of the socket the node's learners attach to.
func (r *Server) Socket() string { return r.lead.server.Name() }

// Start waits until every learner of the node attached (at most timeout),
// and then, once all node readers got theirs, begins the run. Collective.
func (r *Server) Start(timeout time.Duration) error {
	if err := agree(r.t.World, r.lead.welcome(timeout)); err != nil {
		return err
	}
	r.lead.start()
	return nil
}

// Close waits until the node's learners have closed and frees the node
// reader; its error is the run's, if it failed.
func (r *Server) Close() error {
	if !r.lead.started.Load() {
		return r.lead.closeParts()
	}
	return r.lead.close(context.Background())
}

// Attach connects learner local of a node to its node reader (Server)
// listening on socket, without MPI: the process need not be an MPI rank.
// The Loader it returns delivers the learner's batches as Open's does.
func Attach(socket string, local int) (*Loader, error) {
	l := &Loader{}
	if err := l.attach(socket, local); err != nil {
		l.Close()
		return nil, err
	}
	l.epoch = l.cfg.FirstEpoch
	return l, nil
}
