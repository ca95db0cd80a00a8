package loader

import (
	"fmt"
	"time"

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

// AgreeNodes runs Open's agreement on opt and path (collective) and
// returns what the ranks learnt of the nodes; it closes the file a leader
// opened for direct I/O, saying whether it had one.
func AgreeNodes(path string, opt Options) (sizes []int, readers int, direct, opened bool, err error) {
	n, err := agreeOptions(opt.Topology.World, opt.Topology, path, &opt, localRanks)
	if err != nil {
		return nil, 0, false, false, err
	}
	opened = n.probe != nil
	closeProbe(n.probe)
	return n.sizes, n.readers, n.direct, opened, nil
}

// OpenRecord holds the collectives Open's steps made on this rank since
// RecordOpen or its last Check.
type OpenRecord struct{ r *openRecorder }

// RecordOpen makes Open and Serve record the collectives of their steps,
// checking before each that every member of its communicator makes the
// same, and returns the record and what restores Open.
func RecordOpen() (*OpenRecord, func()) {
	rec := &OpenRecord{&openRecorder{logs: map[string][]openCall{}}}
	old := openComms
	openComms = func(t *topology.Topology) comms { return rec.r.wrap(t) }
	return rec, func() { openComms = old }
}

// Check compares the sequences recorded on every member of each of t's
// communicators (world, leaders, local), returns how many collectives this
// rank made on each, and starts a new record. Collective.
func (rec *OpenRecord) Check(t *topology.Topology) (map[string]int, error) {
	counts, err := rec.r.compare(t)
	rec.r.logs, rec.r.diverged = map[string][]openCall{}, nil
	return counts, err
}

// LoseSnapshot makes the snapshot of node's node reader unheld, so that
// its learners cannot view the file, and returns what restores it.
func LoseSnapshot(node int) (restore func()) {
	old := snapshotLost
	snapshotLost = func(n int) bool { return n == node }
	return func() { snapshotLost = old }
}

// DamageSource makes the source fail to arrive on node's node reader, and
// returns what restores it.
func DamageSource(node int) (restore func()) {
	old := sourceDamaged
	sourceDamaged = func(t *topology.Topology) error {
		if t.Node == node {
			return fmt.Errorf("the source for node %d is damaged on purpose", node)
		}
		return nil
	}
	return func() { sourceDamaged = old }
}

// SetCloseTimeout sets how long a node leader waits at Close for its
// learners and returns what restores it.
func SetCloseTimeout(d time.Duration) (restore func()) {
	old := closeTimeout
	closeTimeout = d
	return func() { closeTimeout = old }
}
