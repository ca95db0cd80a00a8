package launch

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLearnerOwner: a learner's process, a child in its process group and
// a descendant that left the group are the learner's; the test process is
// no learner's.
func TestLearnerOwner(t *testing.T) {
	// Learner 1 is a shell that starts a child in its group and one in a
	// group of its own (setsid), and prints their pids.
	ls := &learners{alive: make([]bool, 2)}
	var procs []*exec.Cmd
	for _, script := range []string{"sleep 30", "sleep 30 & echo $!; setsid sleep 30 & echo $!; wait"} {
		c := exec.Command("sh", "-c", script)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		procs = append(procs, c)
	}
	out, err := procs[1].StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range procs {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() }()
		ls.procs = append(ls.procs, c)
	}
	buf := make([]byte, 64)
	var got string
	for deadline := time.Now().Add(5 * time.Second); strings.Count(got, "\n") < 2 && time.Now().Before(deadline); {
		n, err := out.Read(buf)
		got += string(buf[:n])
		if err != nil {
			break
		}
	}
	pids := strings.Fields(got)
	if len(pids) != 2 {
		t.Fatalf("the shell printed %q, want two pids", got)
	}
	inGroup, _ := strconv.Atoi(pids[0])
	ownGroup, _ := strconv.Atoi(pids[1])
	defer syscall.Kill(ownGroup, syscall.SIGKILL)
	for _, c := range []struct {
		what  string
		pid   int
		local int
		ok    bool
	}{
		{"learner 0", procs[0].Process.Pid, 0, true},
		{"learner 1", procs[1].Process.Pid, 1, true},
		{"a child in learner 1's group", inGroup, 1, true},
		{"a child of learner 1 in a group of its own", ownGroup, 1, true},
		{"the test process", os.Getpid(), 0, false},
	} {
		if local, ok := ls.owner(c.pid); ok != c.ok || ok && local != c.local {
			t.Errorf("%s (pid %d): owner %d, %v; want %d, %v", c.what, c.pid, local, ok, c.local, c.ok)
		}
	}
}
