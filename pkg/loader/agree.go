package loader

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/hdf5"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/lmdbfmt"
	"github.com/lmdbio/lmdbio/pkg/lmdbwalk"
	"github.com/lmdbio/lmdbio/pkg/ring"
	"github.com/lmdbio/lmdbio/pkg/shm"
	"github.com/lmdbio/lmdbio/pkg/source"
)

// bcastBytes sends root's b to every rank of c, length first.
func bcastBytes(c *mpi.Comm, root int, b []byte) ([]byte, error) {
	n := make([]byte, 8)
	binary.LittleEndian.PutUint64(n, uint64(len(b)))
	if err := c.Bcast(n, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		b = make([]byte, binary.LittleEndian.Uint64(n))
	}
	if err := c.Bcast(b, root); err != nil {
		return nil, err
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
func bcastStatus(c *mpi.Comm, root, rootWorldRank int, err error, payload any) (json.RawMessage, error) {
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
	failed := int64(c.Size())
	if err != nil {
		failed = int64(c.Rank())
	}
	out := make([]int64, 1)
	if e := c.AllreduceInt64([]int64{failed}, out, mpi.Min); e != nil {
		return e
	}
	if out[0] == int64(c.Size()) {
		return nil
	}
	_, e := bcastStatus(c, int(out[0]), int(out[0]), err, nil)
	if err != nil {
		return err
	}
	return e
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
	var pf *ring.PeerFailure
	if errors.As(err, &pf) && pf.BadInput { // the node reader's failure, as it classed it
		return true
	}
	return lmdbwalk.IsCorrupt(err)
}

// agreeSettings checks that every rank of c opened the loader with the same
// settings (name, value pairs in the same order). If not, every rank gets
// the same error, naming the first setting that differs, rank 0's value
// and the ranks with another value. Collective.
func agreeSettings(c *mpi.Comm, settings [][2]string) error {
	mine, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	root, err := bcastBytes(c, 0, mine)
	if err != nil {
		return err
	}
	differs := int64(0)
	if !bytes.Equal(root, mine) {
		differs = 1
	}
	any := make([]int64, 1)
	if err := c.AllreduceInt64([]int64{differs}, any, mpi.Max); err != nil {
		return err
	}
	if any[0] == 0 {
		return nil
	}
	all, err := c.GatherBytes(mine, 0)
	var msg error
	if c.Rank() == 0 && err == nil {
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
