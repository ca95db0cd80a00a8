package launch

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// bannerFilter passes the launcher's stderr on line by line, but drops Open
// MPI's boxed notices about a rank that exited with status 1 or 2 (lmdbio's
// statuses, whose ranks say why in one line that the boxes, a dozen lines,
// buried), and the notice that the job was aborted for a non-zero exit,
// which the status of lmdbio run says, and its "Forwarding signal N to job"
// (lmdbio run passes signals on itself, and mpirun says it also when it
// wakes its own ranks to end them). A rank that ends the job with
// lmdbio_abort says why in lmdbio's line: Open MPI's "MPI_ABORT was
// invoked" box for that rank, mpirun's ORTE_ERROR_LOG lines while it tears
// the job down, and the same line of other ranks that fail of it, go too:
// the first rank's line is the job's. A box is the lines from one of Open
// MPI's rules to the next; other boxes pass unchanged, and so does
// everything held back when the stream ends.
type bannerFilter struct {
	out     io.Writer
	partial []byte   // the line being read, held back while it may be a rule or lies in a box
	passing bool     // the start of the line being read went on: so does the rest
	box     []string // the box being read, its opening rule first; nil outside one
	aborted []string // the ranks that said, in lmdbio's line, that they end the job
	agent   bool     // an agent said it ends the job: its MPI_Abort is lmdbio's
	head    []byte   // the start of a line that goes on in pieces, to spot lmdbio's line in it
}

// maxBoxLines and maxLineBytes bound what is held back: more is not one of
// the notices.
const (
	maxBoxLines  = 64
	maxLineBytes = 64 << 10
)

// boxCode finds the exit status in Open MPI's notice of a non-zero exit.
var boxCode = regexp.MustCompile(`Exit code:\s*(\d+)`)

// Write passes on b line by line. The start of a line that cannot open a
// box goes on at once, before its end: a program's progress line ("\r50%"
// and no newline) must not wait for one.
func (f *bannerFilter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		end := bytes.IndexByte(b, '\n') + 1
		if end == 0 {
			end = len(b)
		}
		if err := f.take(b[:end]); err != nil {
			return n, err
		}
		b = b[end:]
	}
	return n, nil
}

// take handles a piece of one line, its newline included if it has one.
func (f *bannerFilter) take(p []byte) error {
	whole := p[len(p)-1] == '\n'
	f.partial = append(f.partial, p...)
	if len(f.partial) > maxLineBytes && f.box != nil { // no notice: let it all out
		if err := f.write(f.box...); err != nil {
			return err
		}
		f.box = nil
	}
	if f.passing || f.box == nil && !mayBeRule(f.partial) && !mayBeForwarding(f.partial) && !f.mayBeTeardown(f.partial) {
		f.head = append(f.head, f.partial[:min(len(f.partial), maxHeadBytes-len(f.head))]...)
		if whole {
			f.noteAbort(string(f.head))
			f.head = f.head[:0]
		}
		_, err := f.out.Write(f.partial)
		f.partial, f.passing = f.partial[:0], !whole
		return err
	}
	if !whole {
		return nil
	}
	l := string(f.partial[:len(f.partial)-1])
	f.partial = f.partial[:0]
	return f.line(l)
}

// flush writes what is held back: the stream ended.
func (f *bannerFilter) flush() error {
	held := f.box
	if len(f.partial) > 0 {
		held = append(held, string(f.partial))
	}
	f.box, f.partial = nil, nil
	return f.write(held...)
}

func (f *bannerFilter) line(l string) error {
	switch {
	case f.box == nil && isRule(l):
		f.box = []string{l}
		return nil
	case f.box == nil && forwarding.MatchString(l):
		return nil
	case f.box == nil:
		drop := f.said() && (orteErrorLog.MatchString(l) || abortSaid.MatchString(l) || f.agentSaysAborted(l))
		f.noteAbort(l) // a line dropped names a rank too, whose agent may speak of it next
		if drop {
			return nil // the job's one line was said
		}
		return f.write(l)
	}
	f.box = append(f.box, l)
	if !isRule(l) && len(f.box) < maxBoxLines {
		return nil
	}
	box := f.box
	f.box = nil
	if f.abortBox(box) {
		return nil
	}
	return f.write(summarizeBox(box)...)
}

// abortSaid is lmdbio's line for a rank that ends the job (lmdbio_abort);
// abortBox is Open MPI's notice of MPI_Abort; orteErrorLog is one of the
// lines mpirun may print as it ends the ranks.
var (
	abortSaid    = regexp.MustCompile(`^lmdbio: rank (\d+) \(.*; ending the job\s*$`)
	abortNotice  = regexp.MustCompile(`MPI_ABORT was invoked on rank (\d+) `)
	orteErrorLog = regexp.MustCompile(`^\[[^\]]*\] (\[\[[\d,]+\],\d+\] ORTE_ERROR_LOG: |\d+ more process(es)? ha(s|ve) sent help message |Set MCA parameter "orte_base_help_aggregate")`)
)

// maxHeadBytes bounds the start of a line kept to spot lmdbio's line, and
// the teardown lines held back.
const maxHeadBytes = 512

// noteAbort remembers the rank of lmdbio's line for a rank that ends the
// job, and whether an agent ends it.
func (f *bannerFilter) noteAbort(l string) {
	if m := abortSaid.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil {
		f.aborted = append(f.aborted, m[1])
	}
	f.agent = f.agent || strings.HasPrefix(l, agentSays)
}

// said reports whether lmdbio said why the job ends.
func (f *bannerFilter) said() bool { return len(f.aborted) > 0 || f.agent }

// agentSays starts an agent's line; agentLearner is its line for a
// learner that failed.
const agentSays = "lmdbio run --agent: "

var agentLearner = regexp.MustCompile(`^` + agentSays + `learner rank (\d+) \(`)

// agentSaysAborted reports whether l is an agent's line for a learner
// that said why it failed in lmdbio's line (lmdbio_abort in the learner).
func (f *bannerFilter) agentSaysAborted(l string) bool {
	m := agentLearner.FindStringSubmatch(l)
	return m != nil && slices.Contains(f.aborted, m[1])
}

// mayBeTeardown reports whether a line read so far may still turn out an
// ORTE_ERROR_LOG line, or lmdbio's line of a second rank that ends the job
// (another learner that failed of the first one's failure), to drop: only
// once a rank said it ends the job.
func (f *bannerFilter) mayBeTeardown(b []byte) bool {
	if !f.said() || len(b) == 0 || len(b) > maxHeadBytes {
		return false
	}
	for _, said := range []string{"lmdbio: rank ", agentSays + "learner rank "} {
		if strings.HasPrefix(string(b), said) || strings.HasPrefix(said, string(b)) {
			return true
		}
	}
	return b[0] == '['

}

// abortBox reports whether box is Open MPI's notice of MPI_Abort from a
// rank that said why in lmdbio's line, or from an agent after it said why
// (an agent's MPI rank is not its learners', and only lmdbio calls
// MPI_Abort there).
func (f *bannerFilter) abortBox(box []string) bool {
	m := abortNotice.FindStringSubmatch(strings.Join(box, " "))
	return m != nil && (f.agent || slices.Contains(f.aborted, m[1]))
}

func (f *bannerFilter) write(lines ...string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintln(f.out, l); err != nil {
			return err
		}
	}
	return nil
}

// summarizeBox returns what stands for a box: nothing for the notices
// bannerFilter drops, the box itself otherwise.
func summarizeBox(box []string) []string {
	text := strings.Join(box, "\n")
	switch {
	case strings.Contains(text, "exited with non-zero status"):
		for _, l := range box {
			if m := boxCode.FindStringSubmatch(l); m != nil && (m[1] == "1" || m[1] == "2") {
				return nil
			}
		}
	case strings.Contains(text, "returned\na non-zero exit code"):
		return nil
	}
	return box
}

// openMPIRule is the edge of Open MPI's boxes (show_help): 74 dashes. A
// program's own line of dashes is seldom exactly that; if it is, its lines
// are held back until the next one, or maxBoxLines.
var openMPIRule = strings.Repeat("-", 74)

func isRule(l string) bool { return strings.TrimRight(l, " \r") == openMPIRule }

// mayBeRule reports whether a line read so far may still turn out a rule.
func mayBeRule(b []byte) bool {
	s := strings.TrimRight(string(b), " \r\n")
	return len(s) <= len(openMPIRule) && strings.Trim(s, "-") == ""
}

// forwarding is mpirun's line for a signal it passes on to the ranks.
var forwarding = regexp.MustCompile(`^(mpirun|orterun|mpiexec)[\w.-]*: Forwarding signal \d+ to job\s*$`)

// mayBeForwarding reports whether a line read so far may still turn out
// mpirun's forwarding line: it starts as the launcher's name does.
func mayBeForwarding(b []byte) bool {
	if len(b) > 96 {
		return false
	}
	s := string(b)
	for _, name := range []string{"mpirun", "orterun", "mpiexec"} {
		if strings.HasPrefix(s, name) || strings.HasPrefix(name, s) {
			return true
		}
	}
	return false
}
