package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2ERunTooManyRanks: more ranks than any host can hold (each takes a
// pid, and memory) are refused before a launcher starts: status 2 and one
// line that says what was asked and what fits. A dry run prints the command
// and refuses it the same way. Told of other hosts, the launcher decides.
func TestE2ERunTooManyRanks(t *testing.T) {
	started := filepath.Join(t.TempDir(), "started")
	env := fakeLauncher(t, "touch "+started+"\n")
	huge := strconv.Itoa(maxCount)
	r := execute(t, 30*time.Second, env, lmdbioBin, "run", "-n", huge, "--", "true")
	checkOneLineError(t, r, 2, "lmdbio run: this host cannot start "+huge+" ranks, only ")
	if !strings.Contains(r.stderr, "use fewer") || r.stdout != "" {
		t.Errorf("want the advice on stderr and nothing on stdout:\n%s", r)
	}
	if fileExists(started) {
		t.Errorf("the launcher was started:\n%s", r)
	}

	r = execute(t, 30*time.Second, env, lmdbioBin, "run", "--dry-run", "-n", huge, "--", "true")
	checkOneLineError(t, r, 2, "lmdbio run: this host cannot start "+huge+" ranks, only ")
	if ls := lines(r.stdout); len(ls) != 1 || !strings.Contains(ls[0], "-n "+huge+" ") {
		t.Errorf("dry run: want the command on stdout:\n%s", r)
	}

	r = execute(t, 30*time.Second, env, lmdbioBin, "run", "--dry-run", "-n", huge, "--launcher-args", "--hostfile hosts", "--", "true")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("hosts given: want the command and no refusal:\n%s", r)
	}
	if fileExists(started) {
		t.Errorf("a dry run started the launcher")
	}
}
