package loader

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/lmdbwalk"
	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
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
	Err       string          `json:"err,omitempty"`
	BadInput  bool            `json:"bad_input,omitempty"`
	BadOption bool            `json:"bad_option,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// bcastStatus sends root's outcome (err, or payload on success) to every rank
// of c. Every rank returns the same outcome: root its own error, the others a
// remoteError naming root's world rank.
func bcastStatus(c collective, root, rootWorldRank int, err error, payload any) (json.RawMessage, error) {
	var b []byte
	if c.Rank() == root {
		st := status{}
		if err != nil {
			st.Err, st.BadInput, st.BadOption = err.Error(), IsBadInput(err), errors.Is(err, ErrBadOption)
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
		return nil, &remoteError{rank: rootWorldRank, msg: st.Err, badInput: st.BadInput, badOption: st.BadOption}
	}
	return st.Payload, nil
}

// agree makes every rank of c fail when any rank failed. A failing rank
// keeps its own error; the others get a remoteError from the lowest failing
// rank, with its message.
func agree(c *mpi.Comm, err error) error {
	_, err = agreeMax(c, err, nil)
	return err
}

// agreeMax is agree carrying data: unless a rank failed, every rank gets
// the element-wise maximum of every rank's vals. One collective where agree
// and an allreduce would be two; each costs a round among the ranks, and
// Open makes many.
func agreeMax(c collective, err error, vals []int64) ([]int64, error) {
	in := make([]int64, len(vals)+1)
	copy(in, vals)
	if err != nil {
		in[len(vals)] = int64(c.Size() - c.Rank()) // the lowest failing rank has the largest
	}
	out := make([]int64, len(in))
	if e := c.AllreduceInt64(in, out, mpi.Max); e != nil {
		return nil, e
	}
	if out[len(vals)] == 0 {
		return out[:len(vals)], nil
	}
	failed := c.Size() - int(out[len(vals)])
	_, e := bcastStatus(c, failed, failed, err, nil)
	if err != nil {
		return nil, err
	}
	return nil, e
}

// IsBadInput reports failures that the user causes and fixes: a missing,
// corrupt or unsupported dataset, a bad option, too little shared memory.
// Command-line tools exit with status 2 for them.
func IsBadInput(err error) bool {
	for _, target := range []error{fs.ErrNotExist, fs.ErrPermission, lmdbfmt.ErrCorrupt, lmdbfmt.ErrNotLMDB,
		lmdbfmt.ErrUnsupported, lmdbfmt.ErrNotRegular, index.ErrCorrupt, ErrBadOption, ErrBadInput, shm.ErrNoSpace, assign.ErrEmpty,
		assign.ErrTooLarge, ErrResume, hdf5.ErrBadInput, source.ErrCorrupt, source.ErrUnknownFormat,
		syscall.ELOOP, syscall.ENOTDIR, syscall.ENAMETOOLONG} { // paths that cannot name a dataset
		if errors.Is(err, target) {
			return true
		}
	}
	var pf *handoff.PeerFailure
	if errors.As(err, &pf) && pf.BadInput { // the node reader's failure, as it classed it
		return true
	}
	return lmdbwalk.IsCorrupt(err)
}
