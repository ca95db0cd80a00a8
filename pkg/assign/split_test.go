package assign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// samplerCase is a dataset and a world, as a torch trainer would set them
// up: n records, world learners (ranks), batch records per rank's batch.
type samplerCase struct{ n, batch, world int }

var samplerCases = []samplerCase{
	{92, 16, 4},   // the short last round: 28 records, 7/7/7/7
	{1797, 64, 4}, // the digits: 5 records over 4 ranks
	{297, 32, 2},  // a test set of 297 records
	{10, 3, 4}, {3, 5, 4}, {1, 1, 3}, {100, 7, 1}, {64, 8, 8}, {65, 8, 8}, {1001, 3, 6},
}

// distributedSampler gives, for rank j of world, the sizes of its batches
// in an epoch of PyTorch's DistributedSampler with drop_last=False (which
// pads) batched by a DataLoader with drop_last=False, and how many of that
// rank's records are real, not padding. Its formulas: every rank gets
// num_samples = ceil(n/world) indices, the strided indices[j::world] of
// range(n) padded to num_samples x world; a rank's real indices are those
// below n.
func distributedSampler(c samplerCase, j int) (batches []int, real int) {
	numSamples := (c.n + c.world - 1) / c.world
	for at := 0; at < numSamples; at += c.batch {
		batches = append(batches, min(c.batch, numSamples-at))
	}
	for i := j; i < c.n; i += c.world {
		real++
	}
	return batches, real
}

// TestKeepSplitMatchesDistributedSampler checks Keep against the formulas
// of DistributedSampler: as many batches per learner, and every learner
// gets exactly the records DistributedSampler gives that rank that are not
// padding, so a short last round is spread as evenly (7/7/7/7, not
// 16/12/0/0). Sequential on one node spreads its rest the same way; over
// several nodes, each node spreads its own share's rest, so sizes still
// differ by at most one.
func TestKeepSplitMatchesDistributedSampler(t *testing.T) {
	for _, c := range samplerCases {
		order := sampler.Order(sampler.Options{Shuffle: sampler.Global, Seed: 7}, 0, c.n, nil)
		for name, build := range builders {
			for _, nodes := range worldsOf(c.world) {
				l := Layout{Batch: c.batch, NodeSizes: nodes, Remainder: Keep}
				e, err := build(order, l)
				if err != nil {
					t.Fatalf("%s %+v %v: %v", name, c, nodes, err)
				}
				exact := len(nodes) == 1 || name == "ordered" || name == "locality"
				checkAgainstSampler(t, fmt.Sprintf("%s %+v nodes %v", name, c, nodes), e, c, exact)
			}
		}
	}
}

// worldsOf returns a few ways to put world learners on nodes.
func worldsOf(world int) [][]int {
	worlds := [][]int{{world}}
	if world%2 == 0 {
		worlds = append(worlds, []int{world / 2, world / 2})
	}
	if world > 2 {
		worlds = append(worlds, []int{1, world - 2, 1})
	}
	return worlds
}

func checkAgainstSampler(t *testing.T, what string, e *Epoch, c samplerCase, exact bool) {
	t.Helper()
	for j := range c.world {
		batches, real := distributedSampler(c, j)
		if e.Rounds() != len(batches) {
			t.Fatalf("%s: %d rounds, DistributedSampler %d batches per rank", what, e.Rounds(), len(batches))
		}
		got := 0
		for round := range e.Rounds() {
			got += len(e.Learner(j, round))
		}
		if exact && got != real {
			t.Errorf("%s: learner %d gets %d records, DistributedSampler gives rank %d %d real ones", what, j, got, j, real)
		}
	}
	last := e.Rounds() - 1
	lo, hi := c.batch, 0
	for j := range c.world {
		lo, hi = min(lo, len(e.Learner(j, last))), max(hi, len(e.Learner(j, last)))
	}
	if hi-lo > 1 {
		t.Errorf("%s: last round's batches from %d to %d records", what, lo, hi)
	}
}

// TestKeepSplitTorch checks the formulas above against torch itself, where
// it is installed: DistributedSampler's indices per rank, batched by a
// DataLoader, for every case.
func TestKeepSplitTorch(t *testing.T) {
	const script = `
import json, sys
import torch.utils.data as tud
out = []
for n, batch, world in json.load(sys.stdin):
    ranks = []
    for rank in range(world):
        s = tud.DistributedSampler(range(n), num_replicas=world, rank=rank, shuffle=False, drop_last=False)
        sizes = [len(b) for b in tud.DataLoader(list(s), batch_size=batch)]
        # the k-th index of a rank is padding when its place in the padded list is past n
        ranks.append([sizes, sum(1 for k in range(len(s)) if rank + k * world < n)])
    out.append(ranks)
json.dump(out, sys.stdout)
`
	if exec.Command("/usr/bin/python3", "-c", "import torch").Run() != nil {
		t.Skip("torch is not installed for /usr/bin/python3")
	}
	var in [][3]int
	for _, c := range samplerCases {
		in = append(in, [3]int{c.n, c.batch, c.world})
	}
	blob, _ := json.Marshal(in)
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = bytes.NewReader(blob)
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("torch: %v", err)
	}
	var got [][][2]json.RawMessage
	if err := json.Unmarshal(outb, &got); err != nil {
		t.Fatalf("torch's answer: %v", err)
	}
	for k, c := range samplerCases {
		for j := range c.world {
			var sizes []int
			var real int
			_ = json.Unmarshal(got[k][j][0], &sizes)
			_ = json.Unmarshal(got[k][j][1], &real)
			wantSizes, wantReal := distributedSampler(c, j)
			if fmt.Sprint(sizes) != fmt.Sprint(wantSizes) || real != wantReal {
				t.Errorf("%+v rank %d: torch gives batches %v, %d real; the formulas %v, %d", c, j, sizes, real, wantSizes, wantReal)
			}
		}
	}
}

// checkEven checks that round's batches differ by at most one record.
func checkEven(t *testing.T, what string, e *Epoch, round int) {
	t.Helper()
	lo, hi := math.MaxInt, 0
	for j := range e.Learners() {
		lo, hi = min(lo, len(e.Learner(j, round))), max(hi, len(e.Learner(j, round)))
	}
	if hi-lo > 1 {
		t.Fatalf("%s: round %d's batches from %d to %d records", what, round, lo, hi)
	}
}
