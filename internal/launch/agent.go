package launch

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// AgentCommand is the hidden command of lmdbio that lmdbio run --agent
// starts, one per node, and that calls RunAgent.
const AgentCommand = "agent"

// Bounds and grace periods of an agent.
const (
	MaxLearners   = 1<<16 - 1       // learners per node
	attachTimeout = time.Minute     // learners attaching to a session after the agent answered their open
	stopGrace     = 2 * time.Second // learners asked to stop, before they are killed
	sessionGrace  = 3 * time.Second // learners told of a failed session, to exit with their own status first
	leftGrace     = 2 * time.Second // an exited learner's last notices (loaders it closed), to arrive
)

// agentRun is one node's agent at work.
type agentRun struct {
	job      *cli.Job
	perNode  int
	learners *learners
	listener *agent.Listener
	node     *agent.Node
	ending   sync.Once     // the first failure or stop ends the agent
	ended    chan struct{} // closed once it does
}

// RunAgent is the agent of one node: an MPI rank alone on its node that
// starts perNode learner processes of argv with torchrun's environment and
// reads for them (see lmdbio run --help, AGENT MODE). It returns when every
// learner of the job has exited, or fails the job.
func RunAgent(perNode int, argv []string) error {
	// An agent started from a learner's environment is not that learner.
	os.Unsetenv(agent.AgentSocketEnv)
	job, err := cli.StartJob()
	if err != nil {
		return err
	}
	a := &agentRun{job: job, perNode: perNode, ended: make(chan struct{})}
	return job.Finish(a.run(argv))
}

// run starts the learners and runs their calls until every learner of the
// job has exited.
func (a *agentRun) run(argv []string) error {
	t := a.job.Topo
	var err error
	if t.LocalSize != 1 {
		err = cli.InputError(fmt.Errorf("lmdbio run --agent: %d agents on node %d (%s): an agent must be alone on its node (srun --ntasks-per-node=1, as lmdbio run --agent asks)",
			t.LocalSize, t.Node, t.Host))
	}
	if err = a.job.Agree(err); err != nil {
		return err
	}
	place := learnerPlace{node: t.Node, nodes: t.Nodes, perNode: a.perNode, host: t.Host}
	if place.masterAddr, place.masterPort, err = rendezvous(a.job); err != nil {
		return err
	}
	ln, err := agent.Listen(agent.SocketName(shm.JobID(), t.Node, os.Getpid()), t.Node, t.Nodes, a.perNode)
	if err = a.job.Agree(err); err != nil {
		return err
	}
	defer ln.Close()
	a.listener, place.socket = ln, ln.Name()
	a.node = agent.NewNode(agent.Config{Node: t.Node, Nodes: t.Nodes, Learners: a.perNode,
		Exchange: func(mine []byte) ([][]byte, error) { return exchangeAll(t.World, mine) },
		Serve:    a.serve, AttachTimeout: attachTimeout, SessionFailed: a.sessionFailed}, ln)
	a.learners, err = startLearners(argv, place, func(ls *learners) { ln.SetOwner(ls.owner) })
	if err = a.job.Agree(err); err != nil {
		if a.learners != nil {
			a.learners.stop(syscall.SIGTERM, stopGrace)
		}
		return err
	}
	exited := make(chan struct{})
	go a.watch(exited)
	go a.signals()
	if err := a.node.Run(); err != nil {
		a.fail(cli.ExitFailure, fmt.Errorf("lmdbio run --agent: %w", err))
	}
	<-exited
	// The other agents' learners may still run (done with lmdbio, saving
	// their model): wait for them without keeping a core busy.
	_, err = exchangeAll(t.World, []byte{1})
	return err
}

// serve opens path for the learners of every node: this agent is its
// node's reader. Collective over the agents.
func (a *agentRun) serve(path string, opt loader.Options, learners int) (agent.Session, error) {
	opt.Topology = a.job.Topo
	r, err := loader.Serve(path, opt, learners)
	if err != nil {
		return nil, err // not a nil *loader.Server in an interface
	}
	return r, nil
}

// rendezvous is where torch.distributed's processes meet: MASTER_ADDR and
// MASTER_PORT if the job has them, else the host of node 0 and a port free
// there. Collective.
func rendezvous(job *cli.Job) (string, int, error) {
	t := job.Topo
	hosts, err := t.World.AllgatherBytes([]byte(t.Host))
	if err != nil {
		return "", 0, err
	}
	port := make([]byte, 8)
	if t.Rank == 0 {
		if l, err := net.Listen("tcp", ":0"); err == nil {
			binary.LittleEndian.PutUint64(port, uint64(l.Addr().(*net.TCPAddr).Port))
			l.Close()
		}
	}
	if err := t.World.Bcast(port, 0); err != nil {
		return "", 0, err
	}
	addr, p := string(hosts[0]), int(binary.LittleEndian.Uint64(port))
	if v := os.Getenv("MASTER_ADDR"); v != "" {
		addr = v
	}
	if v, err := strconv.Atoi(os.Getenv("MASTER_PORT")); err == nil && v > 0 {
		p = v
	}
	if p == 0 { // the same on every agent
		return "", 0, fmt.Errorf("lmdbio run --agent: no free TCP port on %s for MASTER_PORT: set MASTER_PORT", hosts[0])
	}
	return addr, p, nil
}

// watch follows the learners: one that fails ends the job, as torchrun
// ends it, and so does one that exits 0 but left a loader open (in the
// middle of the run, as a crash would: the others' batches wait for it);
// one that exits 0 makes no more calls. It closes exited once every
// learner has exited.
func (a *agentRun) watch(exited chan<- struct{}) {
	type verdict struct {
		local, code int
		how         string // "" when the learner exited 0 as it should
	}
	verdicts := make(chan verdict, a.perNode)
	for judged := 0; judged < a.perNode; {
		select {
		case e := <-a.learners.exits:
			if ok, code, how := e.failure(); !ok {
				verdicts <- verdict{e.local, code, how}
				continue
			}
			go func() { // its last notices may take a moment to be read
				if open := a.listener.OpenLoaders(e.local, leftGrace); len(open) > 0 {
					verdicts <- verdict{e.local, cli.ExitFailure, "exited with its loader of " + open[0] + " open, in the middle of the run (without lmdbio_close)"}
					return
				}
				verdicts <- verdict{e.local, cli.ExitOK, ""}
			}()
		case v := <-verdicts:
			judged++
			if v.how != "" {
				a.fail(v.code, fmt.Errorf("lmdbio run --agent: %s %s", a.learners.describe(v.local), v.how))
			}
			a.node.Exited(v.local)
		}
	}
	close(exited)
}

// sessionFailed ends the job after a session failed: a learner left it
// without closing its loader, or the node reader failed. The learners were
// told; one that fails of it ends the job with its own status first.
func (a *agentRun) sessionFailed(path string, err error) {
	select {
	case <-a.ended:
		return
	case <-time.After(sessionGrace):
	}
	a.fail(cli.ExitCodes[failure.KindOf(err)], fmt.Errorf("lmdbio run --agent: %s: %w", path, err))
}

// signals passes signals on to the learners. A signal that stops jobs
// (the launcher ending this one) stops them, and the agent with them.
func (a *agentRun) signals() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	for s := range sigs {
		sig := s.(syscall.Signal)
		if !stopSignals[s] {
			a.learners.signal(sig)
			continue
		}
		a.end(func() {
			a.learners.stop(sig, stopGrace)
			a.job.Cleanup()
			os.Exit(cli.ExitFailure) // the launcher that sent it says why
		})
	}
}

// lineHeadStart is the time the lines that say why a job ends get to reach
// the launcher before MPI_Abort.
const lineHeadStart = 200 * time.Millisecond

// fail ends the job from this agent: it says why, stops its learners and
// makes MPI end every other agent (which stop theirs). It does not return.
func (a *agentRun) fail(code int, err error) {
	a.end(func() {
		cli.Report("", err)
		a.learners.stop(syscall.SIGTERM, stopGrace)
		if a.job.Topo.Size > 1 {
			// mpirun forwards the lines of the agent and its learners on
			// its own time but says its notice of the abort at once: a
			// moment lets the line that says why come first, so that lmdbio
			// run knows the notice for lmdbio's and drops it.
			time.Sleep(lineHeadStart)
			mpi.Abort(code)
		}
		a.job.Cleanup()
		os.Exit(code)
	})
}

// end runs the first way of ending the agent; callers that come later wait
// for the process to exit.
func (a *agentRun) end(how func()) {
	first := false
	a.ending.Do(func() {
		first = true
		close(a.ended)
	})
	if first {
		how()
	}
	select {}
}
