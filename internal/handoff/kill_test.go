package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv names the socket a re-executed test binary should connect to as
// local rank 1; see TestMain.
const childEnv = "LMDBIO_RING_TEST_LEARNER"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(childLearner(name))
	}
	os.Exit(m.Run())
}

// childLearner is the body of the re-executed test binary: a learner that
// connects and then waits for batches until it is killed.
func childLearner(name string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, name, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for {
		if _, err := c.Recv(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

// TestKilledLearner: a learner process killed with SIGKILL cannot say Bye or
// Fail; the server must still report it, naming it, as soon as the kernel has
// closed its socket.
func TestKilledLearner(t *testing.T) {
	ctx := testCtx(t)
	name := testName(t)
	s, err := Listen(name, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	self, err := Dial(ctx, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(ctx, 15*time.Second); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%v (child stderr: %s)", err, stderr.String())
	}
	if err := s.Send(1, Batch{ID: 1}); err != nil {
		t.Fatal(err)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(werr, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v (stderr: %s)", werr, stderr.String())
	}
	// The child is reaped, so its socket is closed: the server only has to
	// notice. A second is generous; a hang would never end.
	reaped := time.Now()
	select {
	case err := <-s.Errors():
		t.Logf("reported %v after the child was reaped: %v", time.Since(reaped), err)
		want := fmt.Sprintf("learner 1 (pid %d)", cmd.Process.Pid)
		if !errors.Is(err, ErrPeerGone) || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want ErrPeerGone naming %q", err, want)
		}
	case <-time.After(time.Second):
		t.Fatal("the server did not notice the killed learner within a second")
	}
	// The surviving learner is unaffected.
	if err := s.Send(0, EndOfEpoch{Epoch: 3}); err != nil {
		t.Fatal(err)
	}
	if m, err := self.Recv(ctx); err != nil || m != (EndOfEpoch{Epoch: 3}) {
		t.Fatalf("survivor got %v, %v", m, err)
	}
}
