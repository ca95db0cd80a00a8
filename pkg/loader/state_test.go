package loader

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseStateVersions: this build reads its own states and version-1
// states of every order but chunk, whose order changed with version 2.
func TestParseStateVersions(t *testing.T) {
	doc := func(version int, shuffle string) []byte {
		return fmt.Appendf(nil, `{"version":%d,"dataset":"d","records":300,"shuffle":%q,"seed":7,"chunk_bytes":67108864,`+
			`"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":3}`, version, shuffle)
	}
	for _, c := range []struct {
		version int
		shuffle string
		refused string // "" for accepted
	}{
		{StateVersion, "chunk", ""},
		{StateVersion, "global", ""},
		{1, "global", ""},
		{1, "none", ""},
		{1, "chunk", "chunk order"},
		{3, "global", "format version 3"},
		{0, "global", "format version 0"},
	} {
		_, err := ParseState(doc(c.version, c.shuffle))
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("version %d, %s: %v", c.version, c.shuffle, err)
		case c.refused != "" && (!errors.Is(err, ErrResume) || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("version %d, %s: got %v, want an ErrResume saying %q", c.version, c.shuffle, err, c.refused)
		}
	}
}

// FuzzParseState: a resume file is bytes from disk. Whatever they are,
// ParseState returns a state or an ErrResume, never panics, and a state it
// accepts is one it accepts again once written back (what --state-out of
// the resumed run writes), with a global batch its learners divide evenly.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"version":2,"dataset":"d","records":300,"shuffle":"global","seed":7,"chunk_bytes":67108864,` +
		`"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":3}`))
	f.Add([]byte(`{"version":1,"global_batch":3,"node_sizes":[1,1,1]}`))
	f.Add([]byte(`{"version":2,"global_batch":1,"node_sizes":[0]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseState(b)
		if err != nil {
			if !errors.Is(err, ErrResume) {
				t.Fatalf("error %v is not an ErrResume", err)
			}
			return
		}
		learners := 0
		for _, n := range s.NodeSizes {
			learners += n
		}
		if learners < 1 || s.GlobalBatch%learners != 0 || s.GlobalBatches < 0 || s.Epoch < 0 {
			t.Fatalf("accepted %+v", s)
		}
		again, err := ParseState([]byte(s.fingerprint()))
		if err != nil || again.fingerprint() != s.fingerprint() {
			t.Fatalf("%s written back: %+v, %v", s.fingerprint(), again, err)
		}
	})
}
