package startup

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Duration
		bad   bool
	}{
		{"", Default, false},
		{"30s", 30 * time.Second, false},
		{"1ns", time.Nanosecond, false},
		{"soon", 0, true},
		{"30", 0, true}, // a number without a unit is not a duration
		{"0s", 0, true},
		{"-5s", 0, true},
	} {
		got, err := Limit(func(name string) string {
			if name == Env {
				return c.value
			}
			return ""
		})
		switch {
		case c.bad && (err == nil || !strings.HasPrefix(err.Error(), Env+"=")):
			t.Errorf("%s=%q: %v, %v; want an error naming the variable", Env, c.value, got, err)
		case !c.bad && (err != nil || got != c.want):
			t.Errorf("%s=%q: %v, %v; want %v", Env, c.value, got, err, c.want)
		}
	}
}

// fakeExit replaces the process's exit and error stream for one test.
type fakeExit struct {
	mu     sync.Mutex
	out    strings.Builder
	status chan int
}

func (f *fakeExit) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.Write(p)
}

func fake(t *testing.T) *fakeExit {
	f := &fakeExit{status: make(chan int, 1)}
	oldExit, oldStderr := exit, stderr
	exit, stderr = func(code int) { f.status <- code }, f
	t.Cleanup(func() { exit, stderr = oldExit, oldStderr })
	return f
}

// TestWatchFires: a start-up that outlasts its limit ends the process with
// one line that names the limit and the variable.
func TestWatchFires(t *testing.T) {
	f := fake(t)
	stop := Watch(time.Millisecond)
	defer stop()
	if code := <-f.status; code != ExitStatus {
		t.Errorf("exit status %d, want %d", code, ExitStatus)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	line := f.out.String()
	if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "lmdbio: MPI did not finish starting in 1ms") || !strings.Contains(line, Env) {
		t.Errorf("the line is %q", line)
	}
}

// TestWatchStopped: a start-up that finished calls the watch off.
func TestWatchStopped(t *testing.T) {
	f := fake(t)
	Watch(50 * time.Millisecond)()
	time.Sleep(200 * time.Millisecond)
	select {
	case code := <-f.status:
		t.Errorf("a stopped watch ended the process with %d", code)
	default:
	}
}
