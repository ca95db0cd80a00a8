package loader_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/lmdbfmt/lmdbtest"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
)

// How the TestMPI tests read a dataset through the loader on every rank and
// check what each rank, and all of them together, received.

// readTimeout bounds one Open-to-Close read of a test dataset. The fixtures
// take well under a second; the bound only turns a hang into a failure.
const readTimeout = 2 * time.Minute

// watchdog ends the whole job if the returned stop is not called within d:
// a rank stuck in a collective cannot be failed any other way.
func watchdog(what string, d time.Duration) (stop func()) {
	timer := time.AfterFunc(d, func() {
		fmt.Fprintf(os.Stderr, "rank %d: %s still running after %v: aborting the job\n", job.Rank, what, d)
		mpi.Abort(1)
	})
	return func() { timer.Stop() }
}

// delivery is what one rank received in one read.
type delivery struct {
	epochs   [][]int64 // record numbers, per epoch, in delivery order
	batches  []int     // batches per epoch
	bytes    int64     // key and value bytes received
	rounds   int       // Rounds()
	arena    int64     // ArenaBytes()
	problems []string  // this rank's failed checks
}

func (d *delivery) problem(format string, args ...any) {
	const most = 8 // the first few say what is wrong; the rest are noise
	if len(d.problems) < most {
		d.problems = append(d.problems, fmt.Sprintf(format, args...))
	} else if len(d.problems) == most {
		d.problems = append(d.problems, "... (more problems)")
	}
}

// reading says how a rank reads, beyond the loader's options.
type reading struct {
	hold bool          // this rank keeps each batch for a while before the next Next
	wait time.Duration // how long it keeps it
	stop int           // if > 0, read only this many batches, then Close
}

// readAll opens fx with opt on every rank, reads every epoch, closes, and
// checks what this rank can check alone: every batch's bytes against
// liblmdb's (right after Next and again right before the next Next), batch
// sizes, epochs and io.EOF. It reports whether Open succeeded and every
// rank's own checks passed. Collective.
func readAll(t *testing.T, fx *fixture, opt loader.Options, how reading) (*delivery, bool) {
	t.Helper()
	defer watchdog(t.Name(), readTimeout+time.Minute)()
	opt.Topology = job
	opt.Index = index.LoadOptions{NoCache: true}
	ld, err := loader.Open(fx.Dir, opt)
	if err != nil {
		t.Errorf("Open: %v", err)
	}
	if !agree(t, err == nil, "Open") {
		if ld != nil {
			t.Errorf("Open returned a Loader and the error %v", err)
			_ = ld.Close()
		}
		return nil, false
	}
	if opt.Epochs == 0 { // the documented defaults, for the checks
		opt.Epochs = 1
	}
	if opt.Batch == 0 {
		opt.Batch = 64
	}
	d := drain(ld, fx, opt, how)
	d.rounds, d.arena = ld.Rounds(), ld.ArenaBytes()
	if ld.Records() != fx.Records() {
		d.problem("Records() = %d, liblmdb has %d", ld.Records(), fx.Records())
	}
	if err := ld.Close(); err != nil {
		d.problem("Close: %v", err)
	}
	if err := ld.Close(); err != nil {
		d.problem("second Close: %v", err)
	}
	for _, p := range d.problems {
		t.Error(p)
	}
	ok := agree(t, len(d.problems) == 0, "reading")
	checkNoSegments(t)
	return d, ok
}

// drain reads every epoch of ld.
func drain(ld *loader.Loader, fx *fixture, opt loader.Options, how reading) *delivery {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	d := &delivery{epochs: make([][]int64, opt.Epochs), batches: make([]int, opt.Epochs)}
	full := opt.Remainder != assign.Keep
	for e := range opt.Epochs {
		var prev loader.Batch
		for n := 0; ; n++ {
			if how.hold {
				time.Sleep(how.wait)
			}
			if n > 0 {
				// The views stay valid until the next Next, even while the
				// node reader refills the arena for other learners.
				d.check(prev, fx, opt.Batch, full, fmt.Sprintf("epoch %d batch %d, right before the next Next", e, n-1))
			}
			b, err := ld.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				d.problem("epoch %d batch %d: Next: %v", e, n, err)
				return d
			}
			if b.Epoch != e {
				d.problem("epoch %d batch %d: Batch.Epoch = %d", e, n, b.Epoch)
			}
			d.check(b, fx, opt.Batch, full, fmt.Sprintf("epoch %d batch %d", e, n))
			for i, r := range b.Records {
				d.epochs[e] = append(d.epochs[e], int64(r))
				d.bytes += int64(len(b.Keys[i]) + len(b.Values[i]))
			}
			d.batches[e]++
			if n > fx.Records() {
				d.problem("epoch %d: more batches than records, and no io.EOF", e)
				return d
			}
			prev = b
			if how.stop > 0 && d.batches[e] == how.stop {
				return d
			}
		}
	}
	for i := range 2 {
		if _, err := ld.Next(ctx); err != io.EOF {
			d.problem("Next number %d after the last epoch: %v, want io.EOF", i+1, err)
		}
	}
	return d
}

// check compares a batch with what liblmdb's cursor returned.
func (d *delivery) check(b loader.Batch, fx *fixture, batch int, full bool, where string) {
	n := len(b.Records)
	if len(b.Keys) != n || len(b.Values) != n {
		d.problem("%s: %d records, %d keys, %d values", where, n, len(b.Keys), len(b.Values))
		return
	}
	if n > batch || (full && n != batch) {
		d.problem("%s: %d records, batch is %d (full batches: %v)", where, n, batch, full)
	}
	for i, r := range b.Records {
		if r < 0 || r >= fx.Records() {
			d.problem("%s: record number %d out of range [0,%d)", where, r, fx.Records())
			continue
		}
		want := fx.Entries[r]
		if !bytes.Equal(b.Keys[i], want.Key) {
			d.problem("%s: record %d: key %x, liblmdb has %x", where, r, b.Keys[i], want.Key)
		}
		if len(b.Values[i]) != want.Len || lmdbtest.Sum(b.Values[i]) != want.SHA256 {
			d.problem("%s: record %d: value of %d bytes differs from liblmdb's (%d bytes)", where, r, len(b.Values[i]), want.Len)
		}
	}
}

// checkCoverage checks, over all ranks, that every learner got Rounds
// batches per epoch and that the records delivered per epoch are what the
// remainder policy promises: Keep every record exactly once, DropLast no
// record twice and fewer than one round left out, Pad every record at least
// once in full rounds. Collective; every rank reaches the same verdict.
func checkCoverage(t *testing.T, d *delivery, fx *fixture, opt loader.Options) {
	t.Helper()
	var mine []string
	lo, hi := minMax(int64(d.rounds))
	if lo != hi {
		mine = append(mine, fmt.Sprintf("Rounds() differs between ranks: %d to %d", lo, hi))
	}
	for e, n := range d.batches {
		if n != d.rounds {
			mine = append(mine, fmt.Sprintf("epoch %d: %d batches, Rounds() = %d", e, n, d.rounds))
		}
	}
	for _, p := range mine {
		t.Error(p)
	}
	agree(t, len(mine) == 0, "batch counts")

	learners := job.Size
	perEpoch := int64(d.rounds) * int64(opt.Batch) * int64(learners)
	var problems []string
	for e := range opt.Epochs {
		count := make([]int, fx.Records())
		total := int64(0)
		for _, recs := range allgatherInts(d.epochs[e]) {
			for _, r := range recs {
				if r >= 0 && r < int64(len(count)) {
					count[r]++
				}
				total++
			}
		}
		missing, twice := []int{}, []int{}
		for r, c := range count {
			if c == 0 {
				missing = append(missing, r)
			}
			if c > 1 {
				twice = append(twice, r)
			}
		}
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("epoch %d: ", e)+fmt.Sprintf(format, args...))
		}
		switch opt.Remainder {
		case assign.Keep:
			if len(missing) > 0 || len(twice) > 0 || total != int64(fx.Records()) {
				bad("%d records delivered for %d; missing %v; more than once %v", total, fx.Records(), head(missing), head(twice))
			}
		case assign.DropLast:
			if len(twice) > 0 {
				bad("records delivered more than once: %v", head(twice))
			}
			if total != perEpoch {
				bad("%d records delivered, want %d rounds x %d learners x batch %d", total, d.rounds, learners, opt.Batch)
			}
			if len(missing) >= opt.Batch*learners {
				bad("%d records left out, want fewer than a round (%d)", len(missing), opt.Batch*learners)
			}
		case assign.Pad:
			if len(missing) > 0 {
				bad("records never delivered: %v", head(missing))
			}
			if total != perEpoch {
				bad("%d records delivered, want %d rounds x %d learners x batch %d", total, d.rounds, learners, opt.Batch)
			}
		}
	}
	if job.Rank == 0 {
		for _, p := range problems {
			t.Error(p)
		}
	} else if len(problems) > 0 {
		t.Errorf("records delivered over all ranks are wrong (details on rank 0)")
	}
}

// head shortens a list for a message.
func head(v []int) string {
	if len(v) > 10 {
		return fmt.Sprintf("%v... (%d)", v[:10], len(v))
	}
	return fmt.Sprint(v)
}

// modes returns every mode the loader has, by name.
func modes(t *testing.T, skipCaffe bool) []string {
	var names []string
	for _, name := range loader.ModeNames() {
		m, err := loader.ParseMode(name)
		if err != nil {
			t.Fatalf("ParseMode(%q): %v", name, err)
		}
		if skipCaffe && m.LMDB {
			continue
		}
		names = append(names, name)
	}
	return names
}

func mustMode(t *testing.T, name string) loader.Mode {
	m, err := loader.ParseMode(name)
	if err != nil {
		t.Fatalf("ParseMode(%q): %v", name, err)
	}
	return m
}
