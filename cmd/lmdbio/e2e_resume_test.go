package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// digestOf runs lmdbio digest with args on one rank and reads its line.
func digestOf(t *testing.T, args ...string) digestLine {
	t.Helper()
	r := lmdbio(t, nil, append([]string{"digest"}, args...)...)
	var d digestLine
	if r.code != 0 {
		t.Fatalf("digest %v failed:\n%s", args, r)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(r.stdout), "records=%d bytes=%d digest=%x", &d.records, &d.bytes, &d.digest); err != nil {
		t.Fatalf("digest %v: %v:\n%s", args, err, r)
	}
	return d
}

// stopAt runs the first global batches of an epoch of the dataset at path
// and returns their digest and the state saved after them.
func stopAt(t *testing.T, path string, batches int) (digestLine, string) {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.json")
	d := digestOf(t, "--batch", "8", "--stop-after", fmt.Sprint(batches), "--state-out", state, path)
	return d, state
}

// checkResumed: the stopped part and the part resumed on path add up to
// the whole epoch.
func checkResumed(t *testing.T, path, state string, stopped, whole digestLine) {
	t.Helper()
	rest := digestOf(t, "--batch", "8", "--resume", state, path)
	got := digestLine{stopped.records + rest.records, stopped.bytes + rest.bytes, stopped.digest + rest.digest}
	if got != whole {
		t.Errorf("stopped %v + resumed %v = %v, the whole epoch is %v", stopped, rest, got, whole)
	}
}

// checkRefused: resuming on path with state ends with one line saying why.
func checkRefused(t *testing.T, path, state, why string) {
	t.Helper()
	r := lmdbio(t, nil, "digest", "--batch", "8", "--resume", state, path)
	checkOneLineError(t, r, 2, "lmdbio")
	if !strings.Contains(r.stderr, why) {
		t.Errorf("the error does not say %q:\n%s", why, r)
	}
}

// TestE2EResumeByContent: a resume state names its dataset by content. A
// copy of the same bytes at another path resumes, the stopped and resumed
// digests adding up to the whole; another dataset of the same shape, the
// same path rewritten with other records, and a state edited by hand are
// refused with one line.
func TestE2EResumeByContent(t *testing.T) {
	gen := []string{"--records", "200", "--size", "2KiB"}
	dir, _ := genDB(t, append(gen, "--seed", "1")...)
	whole := digestOf(t, "--batch", "8", dir)
	stopped, state := stopAt(t, dir, 5)

	moved := filepath.Join(t.TempDir(), "moved")
	copyDir(t, dir, moved)
	checkResumed(t, moved, state, stopped, whole)

	other, _ := genDB(t, append(gen, "--seed", "2")...)
	checkRefused(t, other, state, "saved on another dataset")

	if err := os.RemoveAll(moved); err != nil {
		t.Fatal(err)
	}
	copyDir(t, other, moved)
	checkRefused(t, moved, state, "saved on another dataset")

	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	for what, edit := range map[string][2]string{
		"node sizes":     {`"node_sizes":[1]`, `"node_sizes":[2]`},
		"global batches": {`"global_batches":5`, `"global_batches":3`},
	} {
		doc := strings.Replace(string(b), edit[0], edit[1], 1)
		if doc == string(b) {
			t.Fatalf("%s: %s is not in the state %s", what, edit[0], b)
		}
		edited := filepath.Join(t.TempDir(), "edited.json")
		if err := os.WriteFile(edited, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		checkRefused(t, dir, edited, "edited or damaged")
	}
}

// TestE2EResumeHDF5Moved: the same HDF5 bytes copied to another path
// resume (the state names the records, not the file's path or time).
func TestE2EResumeHDF5Moved(t *testing.T) {
	file := filepath.Join(t.TempDir(), "d.h5")
	if r := lmdbio(t, nil, "gen", "--format", "hdf5", "--records", "100", "--size", "3x8x8", "--chunk", "10", "--out", file); r.code != 0 {
		t.Fatalf("gen failed:\n%s", r)
	}
	whole := digestOf(t, "--batch", "8", file)
	stopped, state := stopAt(t, file, 4)
	moved := filepath.Join(t.TempDir(), "elsewhere.h5")
	copyFile(t, file, moved)
	checkResumed(t, moved, state, stopped, whole)
}
