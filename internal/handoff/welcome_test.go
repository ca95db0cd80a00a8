package handoff

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWelcomeCarriesFiles checks that the files attached to Welcome arrive
// as working descriptors of the same files, and that the messages after it
// arrive as usual.
func TestWelcomeCarriesFiles(t *testing.T) {
	s, clients := startNode(t, 2)
	var files []*os.File
	for _, content := range []string{"arena bytes", "cache bytes"} {
		f, err := os.Create(filepath.Join(t.TempDir(), "seg"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for local := range clients {
		if err := s.Welcome(local, Welcome{Config: []byte(`{"learner":1}`)}, files); err != nil {
			t.Fatal(err)
		}
		if err := s.Send(local, EndOfEpoch{Epoch: 3}); err != nil {
			t.Fatal(err)
		}
	}
	for local, c := range clients {
		w, got, err := c.Welcome(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if string(w.Config) != `{"learner":1}` || len(got) != 2 {
			t.Fatalf("learner %d: config %q, %d files", local, w.Config, len(got))
		}
		for i, f := range got {
			b, err := io.ReadAll(io.NewSectionReader(f, 0, 100))
			f.Close()
			if err != nil || string(b) != []string{"arena bytes", "cache bytes"}[i] {
				t.Fatalf("learner %d file %d: %q, %v", local, i, b, err)
			}
		}
		m, err := c.Recv(testCtx(t))
		if err != nil || m != (EndOfEpoch{Epoch: 3}) {
			t.Fatalf("after Welcome: %v, %v", m, err)
		}
	}
}

// TestWelcomeExpected checks that a learner waiting for Welcome that gets
// another message fails instead of taking it for a batch.
func TestWelcomeExpected(t *testing.T) {
	s, clients := startNode(t, 1)
	if err := s.Send(0, EndOfEpoch{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := clients[0].Welcome(testCtx(t)); err == nil {
		t.Fatal("Welcome accepted an EndOfEpoch")
	}
}
