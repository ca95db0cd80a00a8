package topology

import (
	"fmt"
	"os"
	"strconv"

	"github.com/lmdbio/lmdbio/mpi"
)

// RanksPerNodeEnv names the variable that asks for virtual nodes.
const RanksPerNodeEnv = "LMDBIO_RANKS_PER_NODE"

// Topology is one rank's view of the job. The communicators are owned by the
// Topology and freed by Free.
type Topology struct {
	Rank, Size           int // in the world
	Node, Nodes          int
	LocalRank, LocalSize int
	Host                 string
	Virtual              bool // nodes come from RanksPerNodeEnv

	World   *mpi.Comm
	Local   *mpi.Comm // the ranks of this node
	Leaders *mpi.Comm // one rank per node; nil unless this rank leads its node
}

// Leader reports whether this rank reads for its node.
func (t *Topology) Leader() bool { return t.LocalRank == 0 }

// Discover works out the topology collectively: every rank of world must call it.
func Discover(world *mpi.Comm) (*Topology, error) {
	perNode, err := RanksPerNode(os.Getenv)
	if err != nil {
		return nil, err
	}
	return Virtual(world, perNode)
}

// Virtual is Discover with nodes of perNode consecutive ranks (virtual
// nodes), or the real nodes when perNode is 0, whatever the environment
// says. Collective.
func Virtual(world *mpi.Comm, perNode int) (*Topology, error) {
	if perNode < 0 {
		return nil, fmt.Errorf("topology: %d ranks per node", perNode)
	}
	var err error
	host, _ := os.Hostname()
	t := &Topology{Rank: world.Rank(), Size: world.Size(), Host: host, World: world, Virtual: perNode > 0}
	if perNode > 0 {
		t.Local, err = world.Split(t.Rank/perNode, t.Rank)
	} else {
		t.Local, err = world.SplitShared(t.Rank)
	}
	if err != nil {
		return nil, fmt.Errorf("topology: node communicator: %w", err)
	}
	t.LocalRank, t.LocalSize = t.Local.Rank(), t.Local.Size()
	if err := t.numberNodes(); err != nil {
		t.Free()
		return nil, err
	}
	return t, nil
}

// numberNodes gives each node its id: the rank of its leader among leaders.
func (t *Topology) numberNodes() error {
	color := mpi.Undefined
	if t.Leader() {
		color = 0
	}
	leaders, err := t.World.Split(color, t.Rank)
	if err != nil {
		return fmt.Errorf("topology: leader communicator: %w", err)
	}
	t.Leaders = leaders
	ids := make([]int64, 2)
	if leaders != nil {
		ids[0], ids[1] = int64(leaders.Rank()), int64(leaders.Size())
	}
	buf := int64Bytes(ids)
	if err := t.Local.Bcast(buf, 0); err != nil {
		return fmt.Errorf("topology: node id: %w", err)
	}
	ids = bytesInt64(buf)
	t.Node, t.Nodes = int(ids[0]), int(ids[1])
	return nil
}

// Free releases the communicators Discover created.
func (t *Topology) Free() {
	for _, c := range []*mpi.Comm{t.Leaders, t.Local} {
		if c != nil {
			_ = c.Free()
		}
	}
	t.Leaders, t.Local = nil, nil
}

// RanksPerNode parses RanksPerNodeEnv: 0 when unset.
func RanksPerNode(getenv func(string) string) (int, error) {
	v := getenv(RanksPerNodeEnv)
	if v == "" {
		return 0, nil
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 {
		return 0, fmt.Errorf("%s=%q: want a whole number of ranks >= 1", RanksPerNodeEnv, v)
	}
	return k, nil
}
