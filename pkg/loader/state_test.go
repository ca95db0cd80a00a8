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
