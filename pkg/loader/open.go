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
//  5. shareSocket, each node: Bcast of the node reader's status and socket.
//  6. agreeOpened, world: Allreduce of the outcome.
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
	c := openComms(opt.Topology)
	ds, n, err := prepare(c, path, &opt, localRanks) // steps 1 to 3
	if err != nil {
		return nil, err
	}
	l := &Loader{opt: opt, ds: ds, sizes: n.sizes}
	if opt.Mode.Caffe {
		err = l.openCaffe() // every rank reads for itself: no node reader
	} else {
		err = l.connect(c, n) // steps 4 and 5
	}
	return l.afterOpen(agreeOpened(c.world, err)) // step 6
}

// prepare is the collective start of every open (steps 1 to 3): the
// options, checked and agreed on by every rank, with what the ranks learn
// of the nodes (learners counts a node's learners on its leader); the
// dataset, described by rank 0; its source, on the node readers. Every
// rank returns the same error; a node reader whose copy of the source did
// not arrive whole keeps its error in the dataset for its first agreement
// (see newLeader).
func prepare(c comms, path string, opt *Options, learners func(*topology.Topology) (int, error)) (*dataset, *nodes, error) {
	t := opt.Topology
	ahead := describeAhead(t, path, *opt)
	n, err := agreeOptions(c.world, t, path, opt, learners)
	if err != nil {
		if ahead != nil {
			// No reads of the dataset go on after a failed Open; an
			// index being built is finished, for the next Open.
			<-ahead
		}
		return nil, nil, err
	}
	ds, err := shareDataset(c.world, t, path, *opt, ahead)
	if err == nil && opt.Resume != nil {
		err = opt.Resume.check(ds, *opt, n.sizes) // the same on every rank
	}
	if err != nil {
		closeProbe(n.probe)
		return nil, nil, err
	}
	if opt.Mode.PROV && c.leaders != nil {
		ds.srcErr = shareSource(c.leaders, t, ds)
	}
	return ds, n, nil
}

// localRanks is the learners of a node in Open: all its ranks.
func localRanks(t *topology.Topology) (int, error) { return t.LocalSize, nil }

// openCaffe opens the lmdb mode's reader, every rank its own.
func (l *Loader) openCaffe() error {
	var err error
	if l.caffe, err = openCaffe(l.ds, l.opt); err != nil {
		return err
	}
	l.cfg = runConfig{Records: l.ds.Records, Epochs: l.opt.Epochs, Rounds: l.caffe.rounds, FirstRounds: l.caffe.rounds,
		State: stateAt(l.ds, l.opt, l.sizes, 0, 0), ViewSegment: -1}
	return nil
}

// connect sets up the node (steps 4 and 5): the leader prepares the node
// reader with the other node readers, every local rank connects to it and
// maps the shared memory it passes.
func (l *Loader) connect(c comms, n *nodes) error {
	t := l.opt.Topology
	var err error
	welcomed := make(chan error, 1)
	if t.Leader() {
		l.lead, err = newLeader(t, c.leaders, l.ds, l.opt, n)
		if err == nil {
			go func() { welcomed <- l.lead.welcome(acceptTimeout) }()
		}
	}
	socket, err := shareSocket(c.local, t, l.lead, err)
	if err != nil {
		return err
	}
	err = l.attach(socket, t.LocalRank)
	if t.Leader() && err == nil {
		err = <-welcomed
	}
	if err == nil {
		err = connected(t)
	}
	if err == nil && l.lead != nil && l.lead.xchg == nil {
		// The node's learners are in: the node reader starts reading while
		// the world agrees that every node got this far, a round among
		// every rank. If one did not, Close stops it. With an exchange it
		// waits for the agreement: it would wait for nodes that failed.
		l.lead.start()
	}
	return err // Open agrees on it over the world
}

// shareSocket is step 5: the node's leader tells its ranks the socket of
// its node reader, or why it has none. Collective over the node.
func shareSocket(local collective, t *topology.Topology, lead *leader, err error) (string, error) {
	var socket string
	if lead != nil {
		socket = lead.server.Name()
	}
	payload, err := bcastStatus(local, 0, t.Rank-t.LocalRank, err, socket)
	if err != nil || t.Leader() {
		return socket, err
	}
	if err := jsonUnmarshal(payload, &socket); err != nil {
		return "", err
	}
	return socket, nil
}

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

// agreeOpened is step 6: every rank fails if any did. It is agree, on
// Open's own communicator.
func agreeOpened(world collective, err error) error {
	_, err = agreeMax(world, err, nil)
	return err
}

func (l *Loader) afterOpen(err error) (*Loader, error) {
	if err != nil {
		l.Close()
		return nil, err
	}
	l.epoch = l.cfg.FirstEpoch
	if l.lead != nil {
		l.lead.start()
	}
	return l, nil
}
