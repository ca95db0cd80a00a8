package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// A state document carries a checksum of its fields (from version 4), so
// that a file edited by hand or damaged on the way is refused rather than
// resumed: an edited node_sizes or global_batches would deliver some
// records twice and others never. The checksum guards against mistakes,
// not against someone who recomputes it.

// stateFields is State without its methods, for marshalling its fields.
type stateFields State

// MarshalJSON writes the state's fields and their checksum.
func (s State) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		stateFields
		Checksum string `json:"checksum"`
	}{stateFields(s), s.checksum()})
}

// checksum is the hash of the state's fields as this build marshals them:
// a document read back gives the same fields, so the same checksum,
// whatever spaces or order of fields another writer (Python's json) gave.
func (s *State) checksum() string {
	b, _ := json.Marshal(stateFields(*s)) // only strings, numbers and a slice
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// checkSum says whether document b, read into s, carries the checksum of
// s's fields.
func checkSum(b []byte, s *State) error {
	var doc struct {
		Checksum *string `json:"checksum"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Checksum == nil {
		return fmt.Errorf("%w: damaged: no %q", ErrResume, "checksum")
	}
	if *doc.Checksum != s.checksum() {
		return fmt.Errorf("%w: edited or damaged: its checksum does not match its fields; use a state as lmdbio wrote it (--state-out, Loader.state(), lmdbio_state)", ErrResume)
	}
	return nil
}

// sameDataset says whether the state was saved on ds: from version 4 by
// the content fingerprint, before it by the identity those versions
// carried.
func (s *State) sameDataset(ds *dataset) error {
	now, by := ds.Fingerprint, "content"
	if s.Version < 4 {
		now, by = ds.Identity, "identity"
	}
	if s.Identity != now {
		return fmt.Errorf("%w: it was saved on another dataset (%s %s, this one's %s): resume on the records it was saved on",
			ErrResume, by, s.Identity, now)
	}
	return nil
}
