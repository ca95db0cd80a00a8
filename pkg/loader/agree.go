package loader

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/lmdbio/lmdbio/internal/agreement"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// inlineBytes is what bcastBytes sends with the length, in one broadcast:
// the payloads of Open (options, the dataset, a socket name) fit, and each
// broadcast saved is a round among every rank of the job.
const inlineBytes = 4096

// bcastBytes sends root's b to every rank of c: the length and the first
// inlineBytes-8 bytes in one broadcast, the rest, if any, in a second.
func bcastBytes(c *mpi.Comm, root int, b []byte) ([]byte, error) {
	head := make([]byte, inlineBytes)
	if c.Rank() == root {
		binary.LittleEndian.PutUint64(head, uint64(len(b)))
		copy(head[8:], b)
	}
	if err := c.Bcast(head, root); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64(head)
	inline := min(n, inlineBytes-8)
	if c.Rank() != root {
		b = make([]byte, n)
		copy(b, head[8:8+inline])
	}
	if n > inline {
		if err := c.Bcast(b[inline:], root); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// status is what root tells the others after a step that only it performs.
type status struct {
	Err     string          `json:"err,omitempty"`
	Kind    failure.Kind    `json:"kind,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// bcastStatus sends root's outcome (err, or payload on success) to every rank
// of c. Every rank returns the same outcome: root its own error, the others a
// remoteError naming root's world rank.
func bcastStatus(c *mpi.Comm, root, rootWorldRank int, err error, payload any) (json.RawMessage, error) {
	var b []byte
	if c.Rank() == root {
		st := status{}
		if err != nil {
			st.Err, st.Kind = err.Error(), failure.KindOf(err)
		} else if st.Payload, err = json.Marshal(payload); err != nil {
			return nil, err
		}
		b, _ = json.Marshal(st)
	}
	b, e := bcastBytes(c, root, b)
	if e != nil {
		return nil, e
	}
	if c.Rank() == root {
		return nil, err
	}
	var st status
	if e := json.Unmarshal(b, &st); e != nil {
		return nil, fmt.Errorf("status from rank %d: %w", rootWorldRank, e)
	}
	if st.Err != "" {
		return nil, &remoteError{rank: rootWorldRank, msg: st.Err, kind: st.Kind}
	}
	return st.Payload, nil
}

// agree makes every rank of c fail when any rank failed, of the failure
// the ranks agree on (agreement.OnFailure): the most pressing kind, from
// the lowest rank that had it. That rank keeps its own error, another
// failing rank its own with the agreed kind, and the others get a
// remoteError from that rank, with its message and kind.
func agree(c *mpi.Comm, err error) error {
	_, err = agreeMax(c, err, nil)
	return err
}

// agreeMax is agree carrying data: unless a rank failed, every rank gets
// the element-wise maximum of every rank's vals. One collective where agree
// and an allreduce would be two; each costs a round among the ranks, and
// Open makes many.
func agreeMax(c *mpi.Comm, err error, vals []int64) ([]int64, error) {
	f, out, e := agreement.OnFailureMax(c, err, vals)
	if e != nil {
		return nil, e
	}
	if !f.Failed {
		return out, nil
	}
	_, e = bcastStatus(c, f.Rank, f.Rank, err, nil)
	if err != nil {
		return nil, f.Own(err)
	}
	return nil, e
}

// IsBadInput reports failures that the user causes and fixes: a missing,
// corrupt or unsupported dataset, a bad option, too little shared memory.
//
// Deprecated: ask failure.KindOf(err), which tells a bad option
// (failure.Argument) from bad input (failure.Input), and a bad launch.
func IsBadInput(err error) bool {
	k := failure.KindOf(err)
	return k == failure.Input || k == failure.Argument
}

// agreeOptions is the collective start of every open: each rank sets the
// defaults of its options and checks them, and the leaders count the
// learners of their node (learners) and, where the node readers choose
// how to read (see choosesDirect), open the data file for direct I/O. In
// one broadcast and one allreduce every rank learns whether any rank
// failed, whether all opened the loader with the same settings (name,
// value pairs in the same order) as rank 0, and what nodes holds. If any
// failed, or the settings differ, every rank gets the same error: the
// lowest failing rank's, or the first setting that differs with rank 0's
// value and the ranks with another.
func agreeOptions(t *topology.Topology, path string, opt *Options, learners func(*topology.Topology) (int, error)) (*nodes, error) {
	err := opt.setDefaults()
	if err == nil {
		err = checkThreads(t, *opt)
	}
	mine, e := json.Marshal(append([][2]string{{"path", path}}, opt.settings()...))
	if e != nil {
		return nil, e
	}
	// differs; the learners of every node; the host of every node; whether
	// a node could not open the data file for direct I/O
	vals := make([]int64, 2+2*t.Nodes)
	host := hostKey(t.Host)
	chooses := choosesDirect(*opt)
	var probe *reader.SpanReader
	if err == nil && t.Leader() {
		var n int
		n, err = learners(t)
		vals[1+t.Node], vals[1+t.Nodes+t.Node] = int64(n), host
		if chooses {
			if probe = openDirect(t, path, *opt); probe == nil {
				vals[len(vals)-1] = 1
			}
		}
	}
	m, err := agreeNodes(t, host, mine, err, vals)
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
// every rank, then one allreduce of err and vals; host is this rank's
// hostKey.
func agreeNodes(t *topology.Topology, host int64, mine []byte, err error, vals []int64) (*nodes, error) {
	c := t.World
	root, e := bcastBytes(c, 0, mine)
	if e != nil {
		return nil, e
	}
	if !bytes.Equal(root, mine) {
		vals[0] = 1
	}
	if vals, err = agreeMax(c, err, vals); err != nil {
		return nil, err
	}
	if vals[0] != 0 {
		return nil, reportMismatch(c, mine)
	}
	m := &nodes{sizes: make([]int, t.Nodes), direct: vals[len(vals)-1] == 0}
	for i := range t.Nodes {
		m.sizes[i] = int(vals[1+i])
		if vals[1+t.Nodes+i] == host {
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

// reportMismatch gives every rank of c the same error naming the setting
// that differs. Collective.
func reportMismatch(c *mpi.Comm, mine []byte) error {
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
