package loader

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/agreement"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// inlineBytes is what bcastBytes sends with the length, in one broadcast:
// the payloads of Open (options, the dataset, a socket name) fit, and each
// broadcast saved is a round among every rank of the job.
const inlineBytes = 4096

// bcastBytes sends root's b to every rank of c: the length and the first
// inlineBytes-8 bytes in one broadcast, the rest, if any, in a second.
func bcastBytes(c collective, root int, b []byte) ([]byte, error) {
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
func bcastStatus(c collective, root, rootWorldRank int, err error, payload any) (json.RawMessage, error) {
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
func agreeMax(c collective, err error, vals []int64) ([]int64, error) {
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
