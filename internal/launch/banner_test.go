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
