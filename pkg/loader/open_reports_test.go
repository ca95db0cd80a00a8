package loader

import (
	"reflect"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// maxOf is what an Allreduce of maximums makes of the nodes' packed
// reports.
func maxOf(packed [][]int64) []int64 {
	out := make([]int64, len(packed[0]))
	for _, v := range packed {
		for i, x := range v {
			out[i] = max(out[i], x)
		}
	}
	return out
}

// TestNodeReports: every node's learners and host come back in its place,
// whatever the other ranks send; a flag set on one rank is heard by all.
func TestNodeReports(t *testing.T) {
	const nodes = 3
	var packed [][]int64
	for node := range nodes {
		tp := &topology.Topology{Nodes: nodes, Node: node}
		packed = append(packed,
			nodeReport{learners: 2 + node, host: hostKey("h")}.pack(tp),
			nodeReport{differs: node == 1}.pack(tp), // a rank that does not lead its node
		)
	}
	packed = append(packed, nodeReport{noDirect: true}.pack(&topology.Topology{Nodes: nodes, Node: 2}))
	got := unpackNodeReports(&topology.Topology{Nodes: nodes}, maxOf(packed))
	want := nodesHeard{differs: true, noDirect: true, learners: []int{2, 3, 4},
		hosts: []int64{hostKey("h"), hostKey("h"), hostKey("h")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("heard %+v, want %+v", got, want)
	}
	quiet := unpackNodeReports(&topology.Topology{Nodes: nodes}, maxOf(packed[:2]))
	if quiet.differs || quiet.noDirect || quiet.learners[1] != 0 || quiet.hosts[2] != 0 {
		t.Errorf("from node 0 alone: %+v", quiet)
	}
}

// TestReaderReports: capacities and spare memory by node, the largest
// generation.
func TestReaderReports(t *testing.T) {
	const nodes = 4
	var packed [][]int64
	for node := range nodes {
		r := readerReport{capacity: int64(100 * (node + 1)), spare: int64(node), generation: uint64(7 + node%2)}
		packed = append(packed, r.pack(&topology.Topology{Nodes: nodes, Node: node}))
	}
	got := unpackReaderReports(&topology.Topology{Nodes: nodes}, maxOf(packed))
	want := readersHeard{capacities: []int64{100, 200, 300, 400}, spare: []int64{0, 1, 2, 3}, generation: 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("heard %+v, want %+v", got, want)
	}
}

// TestViewsReports: one node reader that cannot view the file stops all.
func TestViewsReports(t *testing.T) {
	can, cannot := viewsReport{}.pack(), viewsReport{noView: true}.pack()
	if unpackViewsReports(maxOf([][]int64{can, can})) {
		t.Error("every node can view: heard that one cannot")
	}
	if !unpackViewsReports(maxOf([][]int64{can, cannot, can})) {
		t.Error("one node cannot view: not heard")
	}
}
