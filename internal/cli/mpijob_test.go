package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepSessionDirs: the session directories of singletons that ended
// go; those of live processes, those named before the pid was in the name,
// and what is not a directory of ours stay.
func TestSweepSessionDirs(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead, live := strconv.Itoa(ended.Process.Pid), strconv.Itoa(os.Getpid())
	tmp := t.TempDir()
	gone := []string{sessionDirPrefix + dead + "-123"}
	kept := []string{sessionDirPrefix + live + "-456", sessionDirPrefix + "789", sessionDirPrefix + "x-1", "other-" + dead + "-1"}
	for _, d := range append(gone, kept...) {
		if err := os.MkdirAll(filepath.Join(tmp, d, "ompi.host.0"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file := sessionDirPrefix + dead + "-file"
	if err := os.WriteFile(filepath.Join(tmp, file), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sweepSessionDirs(tmp)
	for _, d := range gone {
		if _, err := os.Stat(filepath.Join(tmp, d)); !os.IsNotExist(err) {
			t.Errorf("%s of an ended process is still there (%v)", d, err)
		}
	}
	for _, d := range append(kept, file) {
		if _, err := os.Stat(filepath.Join(tmp, d)); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}
