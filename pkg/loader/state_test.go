package loader

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestParseStateVersions: this build reads its own states, version-1
// states of every order but chunk, whose order changed with version 2, and
// version-2 states but those of a keep run in the file's order taken
// mid-epoch, whose node shares changed with version 3, and no state of
// shuffle none taken mid-epoch before version 4, which made it key order.
func TestParseStateVersions(t *testing.T) {
	doc := func(version int, shuffle, remainder string, batches int) []byte {
		b := fmt.Appendf(nil, `{"version":%d,"dataset":"d","records":300,"shuffle":%q,"seed":7,"chunk_bytes":67108864,`+
			`"chunk_window":8,"remainder":%q,"global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":%d}`,
			version, shuffle, remainder, batches)
		return withChecksum(t, b, version)
	}
	for _, c := range []struct {
		version   int
		shuffle   string
		remainder string
		batches   int
		refused   string // "" for accepted
	}{
		{StateVersion, "chunk", "pad", 3, ""},
		{StateVersion, "global", "pad", 3, ""},
		{StateVersion, "none", "keep", 3, ""},
		{1, "global", "pad", 3, ""},
		{1, "none", "pad", 3, "now key order"},
		{1, "none", "pad", 0, ""},
		{1, "chunk", "pad", 3, "chunk order"},
		{2, "none", "pad", 3, "now key order"},
		{3, "none", "pad", 3, "now key order"},
		{3, "none", "pad", 0, ""},
		{3, "global", "keep", 3, ""},
		{StateVersion, "file", "pad", 3, ""},
		{2, "global", "keep", 3, ""},
		{2, "none", "keep", 0, ""},
		{2, "none", "keep", 3, "start the epoch again"},
		{2, "local", "keep", 3, "start the epoch again"},
		{1, "none", "keep", 3, "start the epoch again"},
		{5, "global", "pad", 3, "format version 5"},
		{0, "global", "pad", 3, "format version 0"},
	} {
		_, err := ParseState(doc(c.version, c.shuffle, c.remainder, c.batches))
		what := fmt.Sprintf("version %d, %s, %s, %d global batches", c.version, c.shuffle, c.remainder, c.batches)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: %v", what, err)
		case c.refused != "" && (!errors.Is(err, ErrResume) || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: got %v, want an ErrResume saying %q", what, err, c.refused)
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
	v4 := string(withChecksum(f, []byte(stateFieldsV4), 4))
	f.Add([]byte(v4))
	f.Add([]byte(strings.Replace(v4, `"node_sizes":[2,2]`, `"node_sizes":[3,1]`, 1)))
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

// stateDoc is a whole state document of this build.
const stateDoc = `{"version":2,"dataset":"d","records":300,"shuffle":"global","seed":7,"chunk_bytes":67108864,` +
	`"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],"epoch":1,"global_batches":3}`

// TestParseStateMissingField: a document without one of the fields, or
// with it null, is damaged: read as zero, a missing epoch or global_batches
// would start the epoch again and deliver records twice.
func TestParseStateMissingField(t *testing.T) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stateDoc), &fields); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseState([]byte(stateDoc)); err != nil {
		t.Fatalf("the whole document: %v", err)
	}
	for name := range fields {
		for _, null := range []bool{false, true} {
			doc := maps.Clone(fields)
			if null {
				doc[name] = json.RawMessage("null")
			} else {
				delete(doc, name)
			}
			b, _ := json.Marshal(doc)
			if _, err := ParseState(b); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), `no "`+name+`"`) {
				t.Errorf("without %s (null %v): %v", name, null, err)
			}
		}
	}
}

// TestReadStateFile: a resume file is read only if it is a regular file of
// a plausible size; a FIFO (whose open would wait for a writer), a device
// and a directory are refused at once.
func TestReadStateFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "state.json")
	big := filepath.Join(dir, "big.json")
	fifo := filepath.Join(dir, "fifo")
	if err := os.WriteFile(good, []byte(stateDoc+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, append([]byte(stateDoc), make([]byte, maxStateFile)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStateFile(good); err != nil {
		t.Errorf("%s: %v", good, err)
	}
	for _, tc := range []struct{ path, text string }{
		{big, "resume state: " + big + ": "},
		{fifo, "resume state: " + fifo + " is a named pipe (FIFO): not a regular file"},
		{dir, "resume state: " + dir + " is a directory: not a regular file"},
		{"/dev/zero", "resume state: /dev/zero is a character device: not a regular file"},
		{filepath.Join(dir, "none"), "resume state: open " + filepath.Join(dir, "none") + ": no such file or directory"},
	} {
		path := tc.path
		done := make(chan error, 1)
		go func() { _, err := ReadStateFile(path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrResume) || !IsBadInput(err) || !strings.HasPrefix(err.Error(), tc.text) {
				t.Errorf("%s: %v, want a bad-input ErrResume saying %q", path, err, tc.text)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", path)
		}
	}
}

// withChecksum adds the checksum of document b's fields when version has
// one (4 and after), as lmdbio writes it.
func withChecksum(t testing.TB, b []byte, version int) []byte {
	t.Helper()
	if version < 4 {
		return b
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stateFieldsV4 are the fields of a state of version 4, without the
// checksum lmdbio writes after them (withChecksum adds it).
const stateFieldsV4 = `{"version":4,"dataset":"lmdb:sha256:00112233445566778899aabbccddeeff","records":300,"shuffle":"global",` +
	`"seed":7,"chunk_bytes":67108864,"chunk_window":8,"remainder":"pad","global_batch":16,"node_sizes":[2,2],` +
	`"epoch":1,"global_batches":3}`

// TestStateChecksum: a state of this version carries a checksum of its
// fields. Written and read back, or rewritten by another JSON writer (other
// spaces, order of fields), it resumes; a field edited by hand, the
// checksum missing or edited, is refused with one line saying so.
func TestStateChecksum(t *testing.T) {
	good := withChecksum(t, []byte(stateFieldsV4), 4)
	back, err := ParseState(good)
	if err != nil {
		t.Fatalf("a state as written: %v", err)
	}
	if back.fingerprint() != string(good) {
		t.Errorf("read back: %s, want %s", back.fingerprint(), good)
	}
	var fields map[string]any
	if err := json.Unmarshal(good, &fields); err != nil {
		t.Fatal(err)
	}
	reordered, _ := json.MarshalIndent(fields, "", "  ") // sorted keys, other spaces
	if _, err := ParseState(reordered); err != nil {
		t.Errorf("the same fields in another order and layout: %v", err)
	}
	edits := map[string]string{
		"node sizes":     strings.Replace(string(good), `"node_sizes":[2,2]`, `"node_sizes":[3,1]`, 1),
		"global batches": strings.Replace(string(good), `"global_batches":3`, `"global_batches":2`, 1),
		"epoch":          strings.Replace(string(good), `"epoch":1`, `"epoch":0`, 1),
		"dataset":        strings.Replace(string(good), `"dataset":"lmdb:sha256:0011`, `"dataset":"lmdb:sha256:1111`, 1),
		"checksum":       strings.Replace(string(good), `"checksum":"sha256:`, `"checksum":"sha256:0`, 1),
	}
	for what, doc := range edits {
		if doc == string(good) {
			t.Fatalf("%s: the edit changed nothing", what)
		}
		_, err := ParseState([]byte(doc))
		if !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), "edited or damaged") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s edited: %v, want one line saying the state was edited", what, err)
		}
	}
	delete(fields, "checksum")
	without, _ := json.Marshal(fields)
	if _, err := ParseState(without); !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), `no "checksum"`) {
		t.Errorf("without its checksum: %v", err)
	}
}
