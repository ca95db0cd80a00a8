package loader

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/topology"
)

// SetEarlyShare sets the share of its cache a node may keep for records
// received early (0: no early exchange) and returns what restores it.
func SetEarlyShare(n int64) (restore func()) {
	old := earlyShare
	earlyShare = n
	return func() { earlyShare = old }
}

// FailConnected makes the leader of node fail Open once its learners have
// attached, and returns what restores Open.
func FailConnected(node int) (restore func()) {
	old := connected
	connected = func(t *topology.Topology) error {
		if t.Leader() && t.Node == node {
			return fmt.Errorf("node %d fails on purpose after its learners attached", node)
		}
		return nil
	}
	return func() { connected = old }
}
