//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// agentJob is a learner that lmdbio run --agent started: it has no MPI of
// its own; its agent makes the collective calls with the other nodes' and
// is its node reader.
type agentJob struct {
	client *agent.Client
}

// joinAgent connects to the agent listening on socket, as learner
// LOCAL_RANK of the node (torchrun's variable, which the agent sets).
func joinAgent(socket string) (*agentJob, error) {
	local, err := strconv.Atoi(os.Getenv("LOCAL_RANK"))
	if err != nil || local < 0 {
		return nil, fmt.Errorf("%w: %s is set but LOCAL_RANK is %q: learners of an agent are started by lmdbio run --agent, which sets both",
			topology.ErrLaunch, agent.AgentSocketEnv, os.Getenv("LOCAL_RANK"))
	}
	c, err := agent.Dial(socket, local)
	if err != nil {
		var e *agent.Error
		if errors.As(err, &e) {
			return nil, fmt.Errorf("%w: %v", topology.ErrLaunch, err)
		}
		return nil, err
	}
	return &agentJob{client: c}, nil
}

func (j *agentJob) where() position {
	t := j.client.Topology()
	return position{rank: t.Rank, size: t.Size, node: t.Node, nodes: t.Nodes, local: t.Local, localSize: t.LocalSize}
}

// open asks the agents to serve path and attaches to the node reader. An
// argument the learner refuses still goes to the agent, as an objection, so
// that every learner of the job gets the error instead of waiting for this
// one.
func (j *agentJob) open(path, options, state string) (source, loader.Options, error) {
	abs := path
	if path != "" {
		// The learners start in one directory, but one may have moved.
		if a, err := filepath.Abs(path); err == nil {
			abs = a
		}
	}
	opt, err := parseOpen(path, options, state)
	var refused *agent.Error
	if err != nil {
		refused = &agent.Error{Kind: failure.KindOf(err), Message: err.Error()}
	}
	socket, session, err := j.client.Open(abs, loaderopts.Format(opt), refused)
	if err != nil {
		return nil, opt, err
	}
	ld, err := loader.Attach(socket, j.client.Topology().Local)
	if err != nil {
		_ = j.client.Closed(session)
		return nil, opt, j.explain(err)
	}
	if opt.Prep != "" && opt.PrepThreads == 0 {
		opt.PrepThreads = max(1, runtime.NumCPU()/max(1, j.client.Topology().LocalSize))
	}
	if err := ld.StartPrep(opt); err != nil {
		_ = ld.Close()
		_ = j.client.Closed(session)
		return nil, opt, err
	}
	return &agentSource{Loader: ld, job: j, session: session}, opt, nil
}

func (j *agentJob) allreduceSum(values []uint64) error { return j.client.AllreduceSum(values) }

func (j *agentJob) finalise() error { return j.client.Close() }

// explain says, of a node reader that went away, that it was the agent.
func (j *agentJob) explain(err error) error {
	if !errors.Is(err, handoff.ErrPeerGone) {
		return err
	}
	t := j.client.Topology()
	return fmt.Errorf("the lmdbio agent of node %d (pid %d), the node's reader, has gone (it died, or the job is ending): %w", t.Node, t.AgentPid, err)
}

// agentSource is a loader attached to the agent's node reader.
type agentSource struct {
	*loader.Loader
	job     *agentJob
	session uint64
}

func (s *agentSource) Next(ctx context.Context) (loader.Batch, error) {
	b, err := s.Loader.Next(ctx)
	return b, s.job.explain(err)
}

// Close closes the loader and tells the agent: a learner that exits with
// a loader open left in the middle of the run.
func (s *agentSource) Close() error {
	err := s.Loader.Close()
	_ = s.job.client.Closed(s.session) // an agent that is gone has no use for it
	return err
}
