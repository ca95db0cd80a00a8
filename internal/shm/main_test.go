//go:build linux

package shm

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the other process of cross-process tests:
// with childRole set it plays that role and exits instead of testing.
const (
	childRole = "LMDBIO_SHM_TEST_ROLE"
	childName = "LMDBIO_SHM_TEST_NAME"
	childJob  = "LMDBIO_SHM_TEST_JOB"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childRole) {
	case "":
		os.Exit(m.Run())
	case "check":
		os.Exit(childCheck(os.Getenv(childName)))
	case "create-and-wait":
		os.Exit(childCreateAndWait(os.Getenv(childJob)))
	default:
		fmt.Fprintln(os.Stderr, "unknown role")
		os.Exit(3)
	}
}

// childCheck opens the segment, verifies the parent's pattern and answers
// by writing its complement, so the parent sees both directions work.
func childCheck(name string) int {
	s, err := Open(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	b := s.Bytes()
	for i := range b {
		if b[i] != pattern(i) {
			fmt.Fprintf(os.Stderr, "byte %d is %d, want %d\n", i, b[i], pattern(i))
			return 1
		}
	}
	for i := range b {
		b[i] = ^pattern(i)
	}
	return 0
}

// childCreateAndWait creates a segment of job, prints its name, and waits
// to be killed.
func childCreateAndWait(job string) int {
	s, err := Create(Name(job, "arena"), 8192)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(s.Name())
	time.Sleep(time.Minute)
	return 0
}

func pattern(i int) byte { return byte(i*7 + i>>8) }

// startChild runs the test binary in role with a segment name or job id.
func startChild(t *testing.T, role, name, job string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRole+"="+role, childName+"="+name, childJob+"="+job)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// testJob returns a job id unique to this test, so tests never touch the
// segments of anything else on the machine.
func testJob(t *testing.T) string {
	return fmt.Sprintf("test%d_%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "_"))
}

// cleanup unlinks whatever the test left under its job prefix.
func cleanup(t *testing.T, job string) {
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), Prefix(job)) {
				os.Remove(dir + "/" + e.Name())
			}
		}
	})
}
