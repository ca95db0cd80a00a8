package startup

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	slept  time.Duration
	status chan int
}

func (f *fakeExit) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.Write(p)
}

// fake replaces the exit and error stream for one test, in a process whose
// launcher set vars.
func fake(t *testing.T, vars map[string]string) *fakeExit {
	f := &fakeExit{status: make(chan int, 1)}
	oldExit, oldStderr, oldEnv, oldSleep := exit, stderr, env, sleep
	exit, stderr, env = func(code int) { f.status <- code }, f, func(k string) string { return vars[k] }
	sleep = func(d time.Duration) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.slept += d
	}
	t.Cleanup(func() { exit, stderr, env, sleep = oldExit, oldStderr, oldEnv, oldSleep })
	return f
}

// TestWatchFires: a start-up that outlasts its limit ends the process;
// the job's first rank, or a process outside a launch, says why in one
// line that names the limit and the variable and ends at once, and the
// other ranks end without a word after the grace that lets the first one
// speak.
func TestWatchFires(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		says bool
	}{
		{map[string]string{}, true},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "0"}, true},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "5"}, false},
		{map[string]string{"PMI_RANK": "1"}, false},
		{map[string]string{"SLURM_STEP_ID": "0", "SLURM_PROCID": "0"}, true},
	} {
		f := fake(t, c.env)
		stop := Watch(time.Millisecond)
		if code := <-f.status; code != ExitStatus {
			t.Errorf("%v: exit status %d, want %d", c.env, code, ExitStatus)
		}
		stop()
		f.mu.Lock()
		line, slept := f.out.String(), f.slept
		f.mu.Unlock()
		if want := map[bool]time.Duration{true: 0, false: Grace}[c.says]; slept != want {
			t.Errorf("%v: waited %v before the exit, want %v", c.env, slept, want)
		}
		switch {
		case c.says && (strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "lmdbio: MPI did not finish starting in 1ms") || !strings.Contains(line, Env)):
			t.Errorf("%v: the line is %q", c.env, line)
		case !c.says && line != "":
			t.Errorf("%v: a rank other than the first said %q", c.env, line)
		}
	}
}

// TestWatchCleansUp: what must not be left behind is done before the
// process ends.
func TestWatchCleansUp(t *testing.T) {
	f := fake(t, nil)
	var cleaned atomic.Bool
	stop := Watch(time.Millisecond, func() { cleaned.Store(true) })
	<-f.status
	stop()
	if !cleaned.Load() {
		t.Error("the process ended without its clean-up")
	}
}

// TestWatchStopped: a start-up that finished calls the watch off.
func TestWatchStopped(t *testing.T) {
	f := fake(t, nil)
	Watch(50 * time.Millisecond)()
	time.Sleep(200 * time.Millisecond)
	select {
	case code := <-f.status:
		t.Errorf("a stopped watch ended the process with %d", code)
	default:
	}
}

// TestLaunchRank: the rank comes from the variables of the launcher that
// set them; srun's only inside a step; none outside a launch.
func TestLaunchRank(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want int
	}{
		{map[string]string{}, -1},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "3"}, 3},
		{map[string]string{"PMIX_RANK": "0"}, 0},
		{map[string]string{"PMI_RANK": "7"}, 7},
		{map[string]string{"SLURM_PROCID": "2"}, -1}, // a batch script, not a task
		{map[string]string{"SLURM_PROCID": "2", "SLURM_STEP_ID": "0"}, 2},
		{map[string]string{"PMI_RANK": "x"}, -1},
	} {
		if got := LaunchRank(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: rank %d, want %d", c.env, got, c.want)
		}
	}
}

// TestWatchCrowded: the line also blames the cores when the launcher
// started many ranks per core on the host, and only then.
func TestWatchCrowded(t *testing.T) {
	cores := runtime.NumCPU()
	for _, c := range []struct {
		env     map[string]string
		blamed  bool
		howMany string
	}{
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_SIZE": strconv.Itoa(crowded * cores)}, true, strconv.Itoa(crowded * cores)},
		{map[string]string{"MPI_LOCALNRANKS": strconv.Itoa(crowded*cores + 1)}, true, strconv.Itoa(crowded*cores + 1)},
		{map[string]string{"OMPI_COMM_WORLD_LOCAL_SIZE": strconv.Itoa(crowded*cores - 1)}, false, ""},
		{map[string]string{}, false, ""},
	} {
		f := fake(t, c.env)
		stop := Watch(time.Millisecond)
		<-f.status
		stop()
		f.mu.Lock()
		line := f.out.String()
		f.mu.Unlock()
		blamed := strings.Contains(line, fmt.Sprintf("or the %s ranks on this host's %d cores start too slowly", c.howMany, cores))
		if blamed != c.blamed || strings.Count(line, "\n") != 1 {
			t.Errorf("%v: the line is %q; want the cores blamed: %v", c.env, line, c.blamed)
		}
	}
}
