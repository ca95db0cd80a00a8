package topology

import (
	"os"
	"testing"

	"github.com/lmdbio/lmdbio/mpi"
)

func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		panic(err)
	}
	code := m.Run()
	_ = mpi.Finalize()
	os.Exit(code)
}

// TestMPIDiscover checks the invariants of the topology for whatever world
// size and LMDBIO_RANKS_PER_NODE the test runs with.
func TestMPIDiscover(t *testing.T) {
	world := mpi.World()
	topo, err := Discover(world)
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Free()
	mine := []int64{int64(topo.Node), int64(topo.Nodes), int64(topo.LocalRank), int64(topo.LocalSize)}
	all := make([]byte, 8*len(mine)*world.Size())
	if err := world.Allgather(int64Bytes(mine), all); err != nil {
		t.Fatal(err)
	}
	rows := bytesInt64(all)
	perNode, _ := RanksPerNode(os.Getenv)
	nextNode, seen := 0, map[int64]int64{} // node -> ranks seen so far
	for r := 0; r < world.Size(); r++ {
		node, local, size := rows[4*r], rows[4*r+2], rows[4*r+3]
		if _, ok := seen[node]; !ok {
			if node != int64(nextNode) {
				t.Fatalf("rank %d: node %d, want nodes numbered by lowest rank (%d)", r, node, nextNode)
			}
			nextNode++
		}
		if local != seen[node] {
			t.Errorf("rank %d: local rank %d, want %d", r, local, seen[node])
		}
		seen[node]++
		if perNode > 0 {
			wantSize := min(int64(perNode), int64(world.Size()-r+int(local)))
			if node != int64(r/perNode) || size != wantSize {
				t.Errorf("rank %d: node %d size %d, want node %d size %d", r, node, size, r/perNode, wantSize)
			}
		}
	}
	for r := 0; r < world.Size(); r++ {
		if nodes := rows[4*r+1]; nodes != int64(len(seen)) {
			t.Errorf("rank %d: nodes = %d, want %d", r, nodes, len(seen))
		}
		if size, want := rows[4*r+3], seen[rows[4*r]]; size != want {
			t.Errorf("rank %d: local size %d, want %d", r, size, want)
		}
	}
	if (topo.Leaders != nil) != topo.Leader() {
		t.Errorf("Leaders communicator present=%v on local rank %d", topo.Leaders != nil, topo.LocalRank)
	}
	if topo.Leaders != nil && (topo.Leaders.Rank() != topo.Node || topo.Leaders.Size() != topo.Nodes) {
		t.Errorf("leader rank %d/%d, want %d/%d", topo.Leaders.Rank(), topo.Leaders.Size(), topo.Node, topo.Nodes)
	}
}
