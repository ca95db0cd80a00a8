//go:build linux

package shm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killedChild starts a child that creates a segment of job and kills it
// with SIGKILL, so the segment stays behind. With reap false the child is
// left a zombie until the returned function reaps it.
func killedChild(t *testing.T, job string, reap bool) (pid int, seg string, wait func()) {
	t.Helper()
	cmd, out := startChild(t, "create-and-wait", "", job)
	if !out.Scan() {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not create its segment: %v", out.Err())
	}
	seg = out.Text()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wait = func() { cmd.Wait() }
	if reap {
		wait()
		return cmd.Process.Pid, seg, func() {}
	}
	// Wait until the kernel shows the zombie, so the test is deterministic.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		state, _, err := procStat(cmd.Process.Pid)
		if err != nil || state == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("child did not die")
		}
	}
	return cmd.Process.Pid, seg, wait
}

// TestSweepStale runs in a directory of its own: every loader Open sweeps
// the segments of dead creators in the shared one, and a test of another
// package opening a loader meanwhile would remove some of the stale
// segments made here before this test's sweep could.
func TestSweepStale(t *testing.T) {
	private := t.TempDir()
	t.Setenv(DirEnv, private) // for the children
	saved := dir
	dir = private
	t.Cleanup(func() { dir = saved })
	job := testJob(t)
	other := job + "_other"
	cleanup(t, job)
	cleanup(t, other)
	prefix := Prefix(job)
	self := strconv.Itoa(os.Getpid())

	deadPID, deadSeg, _ := killedChild(t, job, true)
	_, zombieSeg, reap := killedChild(t, job, false)
	defer reap()
	dead := strconv.Itoa(deadPID)

	live, err := Create(Name(job, "live"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	// Our own pid in the name and header, but another start time: the
	// creator's pid was reused by this process.
	reused, err := Create(Name(job, "reused"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer reused.Close()
	inf := reused.Info()
	inf.CreatorStart++
	marshalHeader(reused.mem, inf)

	writeFile(t, prefix+dead+".garbage", []byte("not a header"))
	writeFile(t, prefix+self+".garbage", []byte("not a header"))
	writeFile(t, prefix+"notapid.x", nil)
	writeFile(t, Prefix(other)+dead+".arena", nil)
	if err := os.Symlink("/nonexistent", filepath.Join(dir, prefix+dead+".link")); err != nil {
		t.Fatal(err)
	}

	removed, err := SweepStale(prefix)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{deadSeg, zombieSeg, reused.Name(), prefix + dead + ".garbage"}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Fatalf("removed %q\nwant    %q", removed, want)
	}
	for _, name := range want {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still exists: %v", name, err)
		}
	}
	for _, name := range []string{live.Name(), prefix + self + ".garbage", prefix + "notapid.x",
		Prefix(other) + dead + ".arena", prefix + dead + ".link"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}

	// A second sweep finds nothing more.
	if removed, err := SweepStale(prefix); err != nil || len(removed) != 0 {
		t.Fatalf("second sweep removed %q, %v", removed, err)
	}
	if !strings.HasPrefix(deadSeg, prefix+dead+".") {
		t.Fatalf("child named its segment %q", deadSeg)
	}
}

func TestAlive(t *testing.T) {
	self := os.Getpid()
	start := selfStart()
	if start == 0 {
		t.Skip("no /proc")
	}
	tests := []struct {
		pid   int
		start uint64
		want  bool
	}{
		{self, start, true},
		{self, 0, true},
		{self, start + 1, false},
		{0, 0, false},
		{-1, 0, false},
		{1 << 23, 0, false}, // above any pid_max
	}
	for _, tt := range tests {
		if got := alive(tt.pid, tt.start); got != tt.want {
			t.Errorf("alive(%d, %d) = %v, want %v", tt.pid, tt.start, got, tt.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "1234 (a (b) c) S 1 1234 1234 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 5678 1000 200"
	state, start, err := parseStat(line)
	if err != nil || state != "S" || start != 5678 {
		t.Fatalf("parseStat = %q %d %v", state, start, err)
	}
	for _, bad := range []string{"", "1234 (x", "1 (x) S 1 2", "1 (x) S 1 1 1 0 -1 4 1 0 0 0 1 2 0 0 20 0 1 0 nope"} {
		if _, _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
