package agent

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestListenerRefusesImpostor: a process that belongs to the learner of
// local rank 1 but claims local rank 0 is refused, whether it connects
// before the learner of local rank 0 or after; the rank stays free for its
// learner. (The test process stands for both learners' processes: the
// owner it is given says which one it is.)
func TestListenerRefusesImpostor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the agent knows its peer's pid from SO_PEERCRED")
	}
	c := newCluster(t, 1, 2)
	l := c.listeners[0]
	name := l.Name()
	me := 1 // whose process the test process is
	l.SetOwner(func(pid int) (int, bool) { return me, pid == os.Getpid() })
	if _, err := Dial(name, 0); err == nil || !strings.Contains(err.Error(), "a process of the learner of local rank 1, says it is local rank 0") {
		t.Fatalf("the impostor first: %v, want it refused", err)
	}
	me = 0
	first, err := Dial(name, 0)
	if err != nil {
		t.Fatalf("the learner of local rank 0 after the impostor: %v", err)
	}
	me = 1
	if _, err := Dial(name, 0); err == nil || !strings.Contains(err.Error(), "says it is local rank 0") {
		t.Fatalf("the impostor after the learner: %v, want it refused", err)
	}
	second, err := Dial(name, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.end([]*Client{first, second})
}
