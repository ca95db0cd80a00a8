package loader_test

import (
	"testing"

	"github.com/lmdbio/lmdbio/pkg/loader"
)

// TestMPINodes checks what the ranks learn of the nodes as they agree on
// Open's options: every node's learners, the node readers on each host
// (all of them: the test's nodes share this machine), and no direct I/O of
// the node readers' choice, nor a file opened for it, where they do not
// choose it: a local file read once, and where the options ask for direct
// I/O themselves. (Where they choose it, on emulated hosts' PFS mounts, is
// scripts/multihost-tests.sh's.)
func TestMPINodes(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	cases := []struct {
		name string
		opt  loader.Options
	}{
		{"default", loader.Options{Epochs: 1}},
		{"direct asked", loader.Options{Epochs: 1, Direct: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Topology = job
			sizes, readers, direct, opened, err := loader.AgreeNodes(fx.Dir, c.opt)
			ok := err == nil
			if !ok {
				t.Errorf("agreement: %v", err)
			}
			if ok && (len(sizes) != job.Nodes || sizes[job.Node] != job.LocalSize || sum(sizes) != job.Size) {
				t.Errorf("learners of the nodes %v: want %d nodes, %d on node %d, %d in all", sizes, job.Nodes, job.LocalSize, job.Node, job.Size)
				ok = false
			}
			if ok && readers != job.Nodes {
				t.Errorf("node readers on this host: %d, want %d", readers, job.Nodes)
				ok = false
			}
			if ok && (direct || opened) {
				t.Errorf("direct I/O chosen %v, the file opened for it %v: want neither", direct, opened)
				ok = false
			}
			agree(t, ok, c.name)
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
