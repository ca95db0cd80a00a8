package launch

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lmdbio/lmdbio/internal/startup"
)

// What Open MPI 4's mpirun printed when one of 4 ranks of lmdbio digest
// exited 2 after saying why.
const ompiNonZero = `lmdbio: /tmp/x: stat /tmp/x: no such file or directory
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun.openmpi detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[10918,1],2]
  Exit code:    2
--------------------------------------------------------------------------
`

// TestBannerFilter: the notices of an exit with status 1 or 2 go, and
// mpirun's lines for the signals it passes on, in whatever pieces the
// stream arrives; the notice of another status, other boxes and lines pass
// unchanged, and what is held back comes out when the stream ends.
func TestBannerFilter(t *testing.T) {
	rule := strings.Repeat("-", 74)
	other := rule + "\nmpirun was unable to launch the specified application\n" + rule + "\n"
	prte := rule + "\nprterun detected that one or more processes exited with non-zero status\n  Process name: [prterun-n1-77@1,5]\n  Exit code:    1\n" + rule + "\n"
	three := strings.Replace(prte, "Exit code:    1", "Exit code:    3", 1)
	for _, c := range []struct{ name, in, want string }{
		{"open mpi 4", ompiNonZero, "lmdbio: /tmp/x: stat /tmp/x: no such file or directory\n"},
		{"open mpi 5", prte, ""},
		{"status 3", three, three},
		{"other box", other, other},
		{"no box", "step 1\nstep 2\n", "step 1\nstep 2\n"},
		{"forwarding", "lmdbio: MPI did not finish starting\nmpirun.openmpi: Forwarding signal 18 to job\norterun: Forwarding signal 10 to job\n",
			"lmdbio: MPI did not finish starting\n"},
		{"mpirun's other lines", "mpirun: Forwarding signals to nobody\nmpi\nmpirun.openmpi: Forwarding signal 18 to job, then more\n",
			"mpirun: Forwarding signals to nobody\nmpi\nmpirun.openmpi: Forwarding signal 18 to job, then more\n"},
		{"cut short", "a\n" + rule + "\nheld\nlast", "a\n" + rule + "\nheld\nlast\n"},
	} {
		for _, piece := range []int{1, 7, len(c.in)} {
			var out strings.Builder
			f := &bannerFilter{out: &out}
			for at := 0; at < len(c.in); at += piece {
				if _, err := f.Write([]byte(c.in[at:min(at+piece, len(c.in))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want {
				t.Errorf("%s, pieces of %d: got\n%q\nwant\n%q", c.name, piece, out.String(), c.want)
			}
		}
	}
}

// TestBannerFilterLongBox: a rule that opens no notice holds back at most
// maxBoxLines lines.
func TestBannerFilterLongBox(t *testing.T) {
	var out strings.Builder
	f := &bannerFilter{out: &out}
	in := strings.Repeat("-", 74) + "\n" + strings.Repeat("log line\n", 2*maxBoxLines)
	if _, err := f.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n < maxBoxLines {
		t.Errorf("%d lines out of %d before the stream ended", n, 2*maxBoxLines+1)
	}
}

// TestBannerFilterPassesProgress: the start of a line that cannot be a rule
// goes on at once (a progress line redrawn with \r has no newline), the
// rest of it too; one that may be a rule waits for its end.
func TestBannerFilterPassesProgress(t *testing.T) {
	var out strings.Builder
	f := &bannerFilter{out: &out}
	for _, c := range []struct{ in, want string }{
		{"\r10%", "\r10%"},
		{"\r20%", "\r10%\r20%"},
		{" done\n", "\r10%\r20% done\n"},
		{"---", "\r10%\r20% done\n"},
		{"x\n", "\r10%\r20% done\n---x\n"},
	} {
		if _, err := f.Write([]byte(c.in)); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Fatalf("after %q: %q, want %q", c.in, out.String(), c.want)
		}
	}
}

// TestMuteWriter: the launcher's stderr passes until a rank's line says its
// start-up outlasted its limit; that line passes, what the launcher says
// after it, while it ends the job, does not.
func TestMuteWriter(t *testing.T) {
	var out strings.Builder
	var muted atomic.Bool
	m := muteWriter{w: &out, muted: &muted, after: []byte(startup.Message)}
	for _, l := range []string{"a launcher note\n", startup.Message + " in 1ns: ...\n",
		"[vm:1] pmix_ptl_base: send_msg: write failed: Broken pipe (32)\n"} {
		if n, err := m.Write([]byte(l)); n != len(l) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", l, n, err)
		}
	}
	if want := "a launcher note\n" + startup.Message + " in 1ns: ...\n"; out.String() != want {
		t.Errorf("passed on %q, want %q", out.String(), want)
	}
}

// What Open MPI 4's mpirun printed when rank 1 of 4 aborted with
// lmdbio_abort after an uncaught Python exception.
const ompiAbort = `Traceback (most recent call last):
ValueError: a bad sample on purpose
lmdbio: rank 1 (local rank 1 of node 0 on vm, pid 15177) raised ValueError: a bad sample on purpose; ending the job
--------------------------------------------------------------------------
MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD
with errorcode 1.

NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.
You may or may not see output from other processes, depending on
exactly when Open MPI kills them.
--------------------------------------------------------------------------
[vm:15280] [[22350,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501
lmdbio: rank 0 (local rank 0 of node 0 on vm, pid 15176) raised RuntimeFailure: rank 1 has gone; ending the job
[vm:23914] 1 more process has sent help message help-mpi-api.txt / mpi-abort
[vm:23914] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages
[a program's own line]
`

// TestBannerFilterAbort: after lmdbio's line for a rank that ends the job,
// Open MPI's box for that rank's MPI_Abort and mpirun's ORTE_ERROR_LOG
// lines go, and so does the line of a second rank that ends the job; the box of a rank that said nothing (a program's own
// MPI_Abort) and an ORTE_ERROR_LOG line before any abort stay.
func TestBannerFilterAbort(t *testing.T) {
	want := "Traceback (most recent call last):\nValueError: a bad sample on purpose\n" +
		"lmdbio: rank 1 (local rank 1 of node 0 on vm, pid 15177) raised ValueError: a bad sample on purpose; ending the job\n" +
		"[a program's own line]\n"
	box := ompiAbort[strings.Index(ompiAbort, "-----"):strings.Index(ompiAbort, "[vm:")]
	orte := "[vm:15280] [[22350,0],0] ORTE_ERROR_LOG: Out of resource in file x.c at line 5\n"
	for _, c := range []struct{ name, in, want string }{
		{"lmdbio's abort", ompiAbort, want},
		{"another rank's box", strings.Replace(ompiAbort, "on rank 1 in", "on rank 3 in", 1),
			strings.Replace(want, "[a program's", strings.Replace(box, "on rank 1 in", "on rank 3 in", 1)+"[a program's", 1)},
		{"a program's own abort", orte + box, orte + box},
		{"an agent's learner", "lmdbio: rank 1 (local rank 1 of node 0 on vm, pid 5) exited with status 1; ending the job\n" +
			"lmdbio run --agent: learner rank 1 (local rank 1 of node 0 on vm, pid 5) exited with status 1\n" +
			strings.Replace(box, "on rank 1 in", "on rank 0 in", 1) + orte,
			"lmdbio: rank 1 (local rank 1 of node 0 on vm, pid 5) exited with status 1; ending the job\n"},
		{"an agent", "lmdbio run --agent: learner rank 2 (local rank 0 of node 1 on vm, pid 5) was killed by signal 9 (SIGKILL)\n" +
			strings.Replace(box, "on rank 1 in", "on rank 1 in", 1) + orte,
			"lmdbio run --agent: learner rank 2 (local rank 0 of node 1 on vm, pid 5) was killed by signal 9 (SIGKILL)\n"},
	} {
		for _, piece := range []int{1, 5, len(c.in)} {
			var out strings.Builder
			f := &bannerFilter{out: &out}
			for at := 0; at < len(c.in); at += piece {
				if _, err := f.Write([]byte(c.in[at:min(at+piece, len(c.in))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want {
				t.Errorf("%s, pieces of %d: got\n%q\nwant\n%q", c.name, piece, out.String(), c.want)
			}
		}
	}
}
