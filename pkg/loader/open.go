package loader

import (
	"fmt"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Open is a protocol between the ranks: every member of a communicator
// must make the same collectives on it, in the same order, or the job
// hangs. Its steps, in order, with the collectives each makes:
//
//  1. agreeOptions (open_options.go), world: Bcast of rank 0's settings,
//     Allreduce of every rank's nodeReport; on a failure a Bcast of the
//     failing rank's status, on settings that differ a GatherBytes and a
//     Bcast of the mismatch.
//  2. shareDataset (dataset.go), world: Bcast of rank 0's description.
//  3. shareSource (dataset.go), node readers, modes with an index: Bcast
//     of rank 0's index or HDF5 layout.
//  4. newLeader (leader.go), node readers, modes with a node reader:
//     agreeViews, an Allreduce of viewsReport; agreeReaders, an Allreduce
//     of readerReport; a Split for the exchange where records cross
//     nodes.
//  5. shareSocket, each node: Bcast of the node reader's status and
//     socket; then every rank attaches to its node reader.
//  6. agreeOpened, world: Allreduce of the outcome.
//
// Open lists the steps; Serve (serve.go) takes steps 1 to 4, then 6. Each
// step is a method of opening, which carries what the steps learnt.
//
// Whether a step makes a collective, and its size, depends only on what
// every member holds alike: the options (agreed in step 1), the topology's
// sizes and what earlier steps agreed on, never on a rank's own outcome.
// A rank with nothing to say sends a neutral value (a zero in an
// Allreduce of maximums); a rank that failed carries its error to the
// next agreement instead of leaving the steps. Each Allreduce payload is a
// typed report that packs and unpacks itself (open_reports.go).
// TestMPIOpenCollectives checks the sequence on every rank.

// collective is what Open's steps ask of a communicator: the collectives
// of *mpi.Comm they make. Tests wrap it to record the sequence.
type collective interface {
	Rank() int
	Size() int
	Bcast(buf []byte, root int) error
	AllreduceInt64(send, recv []int64, op mpi.Op) error
	GatherBytes(mine []byte, root int) ([][]byte, error)
	Split(color, key int) (*mpi.Comm, error)
}

// comms are the communicators of Open's steps: the world, the node
// readers (nil on other ranks) and the node.
type comms struct {
	world, leaders, local collective
}

// openComms gives Open's steps the topology's communicators; tests replace
// it to record the collectives.
var openComms = func(t *topology.Topology) comms {
	c := comms{world: t.World, local: t.Local}
	if t.Leaders != nil { // a nil *mpi.Comm in the interface would not be nil
		c.leaders = t.Leaders
	}
	return c
}

// Open opens the dataset at path (an LMDB directory or its data.mdb, or an
// HDF5 file) for every rank of opt.Topology. It is collective: every rank
// calls it with the same path and options — the ranks check that they
// agree — and every rank gets an error if any rank failed.
func Open(path string, opt Options) (*Loader, error) {
	if opt.Topology == nil {
		return nil, fmt.Errorf("loader: Options.Topology is required")
	}
	o := begin(path, opt, localRanks)
	o.agreeOptions() // 1
	o.shareDataset() // 2
	o.shareSource()  // 3
	if o.opt.Mode.LMDB {
		o.openAlone() // the lmdb mode: every rank reads for itself, no node reader
	} else {
		o.newNodeReader() // 4
		o.shareSocket()   // 5
		o.attach()        // every rank connects to its node reader
	}
	return o.opened(o.agreeOpened()) // 6
}

// opening is an Open (or a Serve) under way: what its steps learnt so
// far, and how it failed. A failure that every rank learnt together
// (ended) ends the steps on every rank at once; a rank's own failure (err)
// goes on through the steps' collectives to the next agreement, where
// every rank of its communicator learns of it.
type opening struct {
	path     string
	opt      Options
	t        *topology.Topology
	c        comms
	learners func(*topology.Topology) (int, error) // a node's learners, on its leader
	ahead    <-chan description                    // rank 0's description of the dataset

	n       *nodes
	ds      *dataset
	l       *Loader
	lead    *leader    // this node's reader, on its leader
	socket  string     // where the node reader listens
	welcome chan error // the node reader's welcome of its learners

	ended error // the agreed failure: no step runs after it
	err   error // this rank's failure, for the next agreement
}

// begin starts an opening; rank 0 starts describing the dataset at once.
func begin(path string, opt Options, learners func(*topology.Topology) (int, error)) *opening {
	t := opt.Topology
	return &opening{path: path, opt: opt, t: t, c: openComms(t), learners: learners, ahead: describeAhead(t, path, opt)}
}

// agreeOptions is step 1: the options, checked and agreed on by every rank,
// with what the ranks learn of the nodes. Collective over the world.
func (o *opening) agreeOptions() {
	o.n, o.ended = agreeOptions(o.c.world, o.t, o.path, &o.opt, o.learners)
	if o.ended != nil && o.ahead != nil {
		// No reads of the dataset go on after a failed Open; an index
		// being built is finished, for the next Open.
		<-o.ahead
	}
}

// shareDataset is step 2: the dataset, as rank 0 describes it, and the
// resumed state checked against it. Collective over the world.
func (o *opening) shareDataset() {
	if o.ended != nil {
		return
	}
	o.ds, o.ended = shareDataset(o.c.world, o.t, o.path, o.opt, o.ahead)
	if o.ended == nil && o.opt.Resume != nil {
		o.ended = o.opt.Resume.check(o.ds, o.opt, o.n.sizes) // the same on every rank
	}
	if o.ended != nil {
		closeProbe(o.n.probe)
		return
	}
	o.l = &Loader{opt: o.opt, ds: o.ds, sizes: o.n.sizes}
}

// shareSource is step 3, in the modes with an index: rank 0's source to
// the node readers. A node reader that did not get it fails at its next
// agreement, in step 4. Collective over the node readers.
func (o *opening) shareSource() {
	if o.ended == nil && o.opt.Mode.PROV && o.c.leaders != nil {
		o.err = shareSource(o.c.leaders, o.t, o.ds)
	}
}

// openAlone opens the lmdb mode's reader, every rank its own.
func (o *opening) openAlone() {
	if o.ended != nil {
		return
	}
	l := o.l
	if l.walk, o.err = openRankWalk(l.ds, l.opt); o.err != nil {
		return
	}
	l.cfg = runConfig{Records: l.ds.Records, Epochs: l.opt.Epochs, Rounds: l.walk.rounds, FirstRounds: l.walk.rounds,
		State: stateAt(l.ds, l.opt, l.sizes, 0, 0), ViewSegment: -1}
}

// newNodeReader is step 4: each node's leader prepares its node reader
// with the others (see newLeader). Collective over the node readers.
func (o *opening) newNodeReader() {
	if o.ended != nil || !o.t.Leader() {
		return
	}
	o.lead, o.err = newLeader(o.t, o.c.leaders, o.ds, o.opt, o.n, o.err)
	if o.l != nil {
		o.l.lead = o.lead
	}
}

// shareSocket is step 5: the node's leader tells its ranks the socket of
// its node reader, or why it has none, and starts welcoming them.
// Collective over the node.
func (o *opening) shareSocket() {
	if o.ended != nil {
		return
	}
	if o.lead != nil {
		o.socket = o.lead.server.Name()
		o.welcome = make(chan error, 1)
		go func() { o.welcome <- o.lead.welcome(acceptTimeout) }()
	}
	payload, err := bcastStatus(o.c.local, 0, o.t.Rank-o.t.LocalRank, o.err, o.socket)
	if err == nil && !o.t.Leader() {
		err = jsonUnmarshal(payload, &o.socket)
	}
	o.err = err
}

// attach connects every rank to its node reader and maps the shared
// memory it passes.
func (o *opening) attach() {
	if o.ended != nil || o.err != nil {
		return
	}
	o.err = o.l.attach(o.socket, o.t.LocalRank)
	if o.welcome != nil && o.err == nil {
		o.err = <-o.welcome
	}
	if o.err == nil {
		o.err = connected(o.t)
	}
	if o.err == nil && o.lead != nil && o.lead.xchg == nil {
		// The node's learners are in: the node reader starts reading while
		// the world agrees that every node got this far, a round among
		// every rank. If one did not, Close stops it. With an exchange it
		// waits for the agreement: it would wait for nodes that failed.
		o.lead.start()
	}
}

// agreeOpened is step 6: every rank fails if any did. It is agree, on
// Open's own communicator. Collective over the world.
func (o *opening) agreeOpened() error {
	if o.ended != nil {
		return o.ended
	}
	_, err := agreeMax(o.c.world, o.err, nil)
	return err
}

// opened is Open's outcome, given step 6's.
func (o *opening) opened(err error) (*Loader, error) {
	if o.l == nil {
		return nil, err
	}
	return o.l.afterOpen(err)
}

// localRanks is the learners of a node in Open: all its ranks.
func localRanks(t *topology.Topology) (int, error) { return t.LocalSize, nil }

// agreeReaders is the node readers' last agreement in step 4: on err, the
// outcome of their steps before, and on every node reader's report.
// Collective over leaders.
func agreeReaders(leaders collective, t *topology.Topology, mine readerReport, err error) (readersHeard, error) {
	all, err := agreeMax(leaders, err, mine.pack(t))
	if err != nil {
		return readersHeard{}, err
	}
	return unpackReaderReports(t, all), nil
}

// connected runs on every rank of Open once it attached to its node
// reader; tests make it fail on one node while the others' node readers
// are already reading.
var connected = func(*topology.Topology) error { return nil }

func (l *Loader) afterOpen(err error) (*Loader, error) {
	if err != nil {
		l.Close()
		return nil, err
	}
	l.epoch = l.cfg.FirstEpoch
	if l.lead != nil {
		l.lead.start()
	}
	if err := l.startPrep(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}
