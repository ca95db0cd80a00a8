package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// agreeOptions is step 1 of Open (see open.go): each rank sets the
// defaults of its options and checks them, and the leaders count the
// learners of their node (learners) and, where the node readers choose
// how to read (see choosesDirect), open the data file for direct I/O. In
// one broadcast and one allreduce every rank learns whether any rank
// failed, whether all opened the loader with the same settings (name,
// value pairs in the same order) as rank 0, and what nodes holds. If any
// failed, or the settings differ, every rank gets the same error: the
// lowest failing rank's, or the first setting that differs with rank 0's
// value and the ranks with another. Collective over world.
func agreeOptions(world collective, t *topology.Topology, path string, opt *Options, learners func(*topology.Topology) (int, error)) (*nodes, error) {
	err := opt.setDefaults()
	if err == nil {
		err = checkThreads(t, *opt)
	}
	mine, e := json.Marshal(append([][2]string{{"path", path}}, opt.settings()...))
	if e != nil {
		return nil, e
	}
	var report nodeReport
	chooses := choosesDirect(*opt)
	var probe *reader.SpanReader
	if err == nil && t.Leader() {
		report.learners, err = learners(t)
		report.host = hostKey(t.Host)
		if chooses {
			probe = openDirect(t, path, *opt)
			report.noDirect = probe == nil
		}
	}
	m, err := agreeNodes(world, t, mine, report, err)
	if err != nil {
		closeProbe(probe)
		return nil, err
	}
	if m.direct = chooses && m.direct; m.direct {
		m.probe = probe
	} else {
		closeProbe(probe)
	}
	return m, nil
}

// agreeNodes is the collective part of agreeOptions: rank 0's settings to
// every rank, then one allreduce of err and every rank's report.
func agreeNodes(world collective, t *topology.Topology, mine []byte, report nodeReport, err error) (*nodes, error) {
	root, e := bcastBytes(world, 0, mine)
	if e != nil {
		return nil, e
	}
	report.differs = !bytes.Equal(root, mine)
	all, err := agreeMax(world, err, report.pack(t))
	if err != nil {
		return nil, err
	}
	heard := unpackNodeReports(t, all)
	if heard.differs {
		return nil, reportMismatch(world, mine)
	}
	m := &nodes{sizes: heard.learners, direct: !heard.noDirect}
	host := hostKey(t.Host)
	for _, h := range heard.hosts {
		if h == host {
			m.readers++
		}
	}
	m.readers = max(m.readers, 1)
	return m, nil
}

// nodes is what every rank learns of the nodes as the ranks agree on the
// options.
type nodes struct {
	sizes   []int // the learners of every node
	readers int   // the node readers on this rank's host (virtual nodes share one)
	// direct says whether the node readers read with direct I/O, where
	// they choose: every node wanted it and opened the file for it. probe
	// is that file on a node leader, for its node reader.
	direct bool
	probe  *reader.SpanReader
}

// hostKey stands for a host name in an allreduce of maximums: a hash,
// positive and never 0, which stands for no node.
func hostKey(host string) int64 {
	h := fnv.New64a()
	h.Write([]byte(host))
	return int64(h.Sum64()>>1) | 1
}

func closeProbe(rd *reader.SpanReader) {
	if rd != nil {
		rd.Close()
	}
}

// checkThreads refuses a run whose node readers would call MPI from several
// goroutines (stagger tokens, exchanges) under an MPI that does not allow
// it.
func checkThreads(t *topology.Topology, opt Options) error {
	if t.Nodes < 2 || mpi.Provided() >= mpi.ThreadMultiple {
		return nil
	}
	if opt.Mode.STAG && opt.Stagger < t.Nodes || opt.Shuffle.WorldIndependent() {
		return fmt.Errorf("%w: MPI provides %v, and the node readers of %d nodes call MPI from several threads: initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)",
			ErrBadOption, mpi.Provided(), t.Nodes)
	}
	return nil
}

// reportMismatch gives every rank of c the same error naming the setting
// that differs. Collective.
func reportMismatch(c collective, mine []byte) error {
	all, msg := c.GatherBytes(mine, 0)
	if c.Rank() == 0 && msg == nil {
		msg = settingsMismatch(all)
	}
	_, e := bcastStatus(c, 0, 0, msg, nil)
	if c.Rank() == 0 {
		return msg
	}
	return e
}

// settingsMismatch names the first setting on which the ranks differ.
func settingsMismatch(all [][]byte) error {
	sets := make([][][2]string, len(all))
	for r, b := range all {
		if err := json.Unmarshal(b, &sets[r]); err != nil {
			return fmt.Errorf("settings of rank %d: %w", r, err)
		}
	}
	for i, kv := range sets[0] {
		var ranks []string
		other := ""
		for r, s := range sets {
			if i >= len(s) || s[i] != kv {
				if len(ranks) < 8 {
					ranks = append(ranks, fmt.Sprint(r))
				} else if len(ranks) == 8 {
					ranks = append(ranks, "...")
				}
				if other == "" && i < len(s) {
					other = s[i][1]
				}
			}
		}
		if len(ranks) > 0 {
			return fmt.Errorf("%w: the ranks disagree on --%s: rank 0 has %q, rank(s) %s have %q: start every rank with the same options",
				ErrBadOption, kv[0], kv[1], strings.Join(ranks, ","), other)
		}
	}
	return fmt.Errorf("%w: the ranks were started with different options", ErrBadOption)
}
