package loader

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/lmdbio/lmdbio/internal/shm"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// TestRemoteErrorKind: a failure another rank reported keeps the kind
// that rank gave it, through the status it broadcast, and matches the
// sentinels of its kind as it did when it carried bools.
func TestRemoteErrorKind(t *testing.T) {
	for _, k := range failure.Kinds() {
		b, err := json.Marshal(status{Err: "m", Kind: k})
		if err != nil {
			t.Fatal(err)
		}
		var st status
		if err := json.Unmarshal(b, &st); err != nil || st.Kind != k {
			t.Errorf("%v: status %s reads back as %v, %v", k, b, st.Kind, err)
		}
		remote := fmt.Errorf("open: %w", &remoteError{rank: 3, msg: "m", kind: st.Kind})
		badOption := k == failure.Argument
		badInput := k == failure.Argument || k == failure.Input
		if failure.KindOf(remote) != k || errors.Is(remote, ErrBadOption) != badOption ||
			errors.Is(remote, ErrBadInput) != badInput || IsBadInput(remote) != badInput {
			t.Errorf("%v: remote error of kind %v, ErrBadOption %v, ErrBadInput %v, IsBadInput %v", k,
				failure.KindOf(remote), errors.Is(remote, ErrBadOption), errors.Is(remote, ErrBadInput), IsBadInput(remote))
		}
	}
}

// TestIsBadInput: what IsBadInput said of the sentinels it listed, it
// says of their kinds.
func TestIsBadInput(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fs.ErrNotExist, true},
		{fmt.Errorf("x: %w", ErrBadOption), true},
		{fmt.Errorf("x: %w", ErrResume), true},
		{fmt.Errorf("x: %w", shm.ErrNoSpace), true},
		{fmt.Errorf("x: %w", topology.ErrLaunch), false},
		{errors.New("disk on fire"), false},
	} {
		if got := IsBadInput(c.err); got != c.want {
			t.Errorf("IsBadInput(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
