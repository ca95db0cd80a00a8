package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// TestExitCodes: every Kind has an exit status, 1 or 2, as EXIT STATUS in
// the help lists them.
func TestExitCodes(t *testing.T) {
	want := map[failure.Kind]int{failure.Argument: 2, failure.Input: 2, failure.Launch: 2, failure.Runtime: 1, failure.Internal: 1}
	for _, k := range failure.Kinds() {
		code, ok := ExitCodes[k]
		if !ok || code != want[k] {
			t.Errorf("%v: exit status %d (mapped %v), want %d", k, code, ok, want[k])
		}
		if got := ExitCode(failure.Mark(errors.New("x"), k)); got != code {
			t.Errorf("ExitCode of an error of kind %v = %d, want %d", k, got, code)
		}
	}
	if len(ExitCodes) != len(failure.Kinds()) {
		t.Errorf("ExitCodes maps %d kinds, there are %d", len(ExitCodes), len(failure.Kinds()))
	}
}

// TestExitCode: the statuses today's errors exit with.
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("disk on fire"), ExitFailure},
		{Usagef("needs a PATH"), ExitUsage},
		{InputError(errors.New("a variable")), ExitUsage},
		{InputError(fmt.Errorf("x: %w", topology.ErrLaunch)), ExitUsage},
		{fmt.Errorf("p: %w", fs.ErrNotExist), ExitUsage},
		{fmt.Errorf("x: %w", loader.ErrBadOption), ExitUsage},
		{fmt.Errorf("x: %w", loader.ErrResume), ExitUsage},
		{fmt.Errorf("x: %w", topology.ErrLaunch), ExitUsage},
		{fmt.Errorf("x: %w", hdf5.ErrBadInput), ExitUsage},
		{fmt.Errorf("x: %w", source.ErrCorrupt), ExitUsage},
		{WithCode(ExitFailure, fmt.Errorf("x: %w", fs.ErrNotExist)), ExitFailure}, // passed on from a job
		{WithCode(ExitUsage, errors.New("lmdbio run: the job said so")), ExitUsage},
		{Quiet(ExitUsage), ExitUsage},
		{Quiet(ExitFailure), ExitFailure},
		{failure.Mark(fmt.Errorf("x: %w", fs.ErrNotExist), failure.Runtime), ExitFailure},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("ExitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if k := failure.KindOf(InputError(fmt.Errorf("x: %w", topology.ErrLaunch))); k != failure.Launch {
		t.Errorf("InputError of a launch error: kind %v", k)
	}
	if k := failure.KindOf(InputError(errors.New("x"))); k != failure.Input {
		t.Errorf("InputError: kind %v", k)
	}
	for _, k := range failure.Kinds() {
		q := quietAgreed(k)
		if !errors.Is(q, ErrQuiet) || failure.KindOf(q) != k || ExitCode(q) != ExitCodes[k] || ExitCode(unquiet(q)) != ExitCodes[k] {
			t.Errorf("quietAgreed(%v): quiet %v, kind %v, exit %d", k, errors.Is(q, ErrQuiet), failure.KindOf(q), ExitCode(q))
		}
	}
}
