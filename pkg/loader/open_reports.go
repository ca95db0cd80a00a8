package loader

import "github.com/lmdbio/lmdbio/pkg/topology"

// The reports of Open's Allreduces (see open.go). Each rank packs its own
// report into a vector in which every other node's place is zero, the
// ranks take the element-wise maximum (agreeMax), and each unpacks what
// every node said. A report's layout is known to its pack and unpack
// alone.

// nodeReport is what a rank says in step 1, agreeOptions: whether its
// settings differ from rank 0's and, on a node's leader, the node's
// learners, its host and whether it could not open the data file for the
// direct I/O its node reader would choose.
type nodeReport struct {
	differs  bool
	learners int   // 0 unless this rank leads its node
	host     int64 // hostKey of the node's host; 0 unless this rank leads its node
	noDirect bool
}

// nodesHeard is what every rank learns from every nodeReport.
type nodesHeard struct {
	differs  bool    // some rank's settings differ from rank 0's
	learners []int   // by node
	hosts    []int64 // by node
	noDirect bool    // some node could not open the file for direct I/O
}

// pack lays r out as [differs, learners by node, hosts by node, noDirect],
// r's node filled in. A rank that does not lead its node fills in zeros.
func (r nodeReport) pack(t *topology.Topology) []int64 {
	v := make([]int64, 2+2*t.Nodes)
	v[0], v[len(v)-1] = flag(r.differs), flag(r.noDirect)
	v[1+t.Node], v[1+t.Nodes+t.Node] = int64(r.learners), r.host
	return v
}

// unpackNodeReports reads the maximum of every rank's packed nodeReport.
func unpackNodeReports(t *topology.Topology, v []int64) nodesHeard {
	h := nodesHeard{differs: v[0] != 0, noDirect: v[len(v)-1] != 0,
		learners: make([]int, t.Nodes), hosts: make([]int64, t.Nodes)}
	for i := range t.Nodes {
		h.learners[i], h.hosts[i] = int(v[1+i]), v[1+t.Nodes+i]
	}
	return h
}

// viewsReport is what a node reader says in agreeViews: whether its
// learners cannot view the data file (it did not map it, or need not).
type viewsReport struct {
	noView bool
}

func (r viewsReport) pack() []int64 { return []int64{flag(r.noView)} }

// unpackViewsReports says whether some node reader cannot view the file.
func unpackViewsReports(v []int64) (anyNoView bool) { return v[0] != 0 }

// readerReport is what a node reader says in agreeReaders: the bytes its
// node cache can hold, the memory it has to spare beyond it, and, with
// stagger, the generation its next stagger would take.
type readerReport struct {
	capacity   int64
	spare      int64
	generation uint64
}

// readersHeard is what every node reader learns from every readerReport.
type readersHeard struct {
	capacities []int64 // by node
	spare      []int64 // by node
	generation uint64  // the largest: one every node reader may take
}

// pack lays r out as [capacities by node, spare by node, generation], r's
// node filled in.
func (r readerReport) pack(t *topology.Topology) []int64 {
	v := make([]int64, 2*t.Nodes+1)
	v[t.Node], v[t.Nodes+t.Node], v[2*t.Nodes] = r.capacity, r.spare, int64(r.generation)
	return v
}

// unpackReaderReports reads the maximum of every node reader's packed
// readerReport.
func unpackReaderReports(t *topology.Topology, v []int64) readersHeard {
	return readersHeard{capacities: v[:t.Nodes], spare: v[t.Nodes : 2*t.Nodes], generation: uint64(v[2*t.Nodes])}
}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
