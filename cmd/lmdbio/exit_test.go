package main

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
		code, ok := exitCodes[k]
		if !ok || code != want[k] {
			t.Errorf("%v: exit status %d (mapped %v), want %d", k, code, ok, want[k])
		}
		if got := exitCode(failure.Mark(errors.New("x"), k)); got != code {
			t.Errorf("exitCode of an error of kind %v = %d, want %d", k, got, code)
		}
	}
	if len(exitCodes) != len(failure.Kinds()) {
		t.Errorf("exitCodes maps %d kinds, there are %d", len(exitCodes), len(failure.Kinds()))
	}
}

// TestExitCode: the statuses today's errors exit with.
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("disk on fire"), exitFailure},
		{usagef("needs a PATH"), exitUsage},
		{inputError(errors.New("a variable")), exitUsage},
		{inputError(fmt.Errorf("x: %w", topology.ErrLaunch)), exitUsage},
		{fmt.Errorf("p: %w", fs.ErrNotExist), exitUsage},
		{fmt.Errorf("x: %w", loader.ErrBadOption), exitUsage},
		{fmt.Errorf("x: %w", loader.ErrResume), exitUsage},
		{fmt.Errorf("x: %w", topology.ErrLaunch), exitUsage},
		{fmt.Errorf("x: %w", hdf5.ErrBadInput), exitUsage},
		{fmt.Errorf("x: %w", source.ErrCorrupt), exitUsage},
		{withCode(exitFailure, fmt.Errorf("x: %w", fs.ErrNotExist)), exitFailure}, // passed on from a job
		{withCode(exitUsage, errors.New("lmdbio run: the job said so")), exitUsage},
		{quiet(exitUsage), exitUsage},
		{quiet(exitFailure), exitFailure},
		{failure.Mark(fmt.Errorf("x: %w", fs.ErrNotExist), failure.Runtime), exitFailure},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if k := failure.KindOf(inputError(fmt.Errorf("x: %w", topology.ErrLaunch))); k != failure.Launch {
		t.Errorf("inputError of a launch error: kind %v", k)
	}
	if k := failure.KindOf(inputError(errors.New("x"))); k != failure.Input {
		t.Errorf("inputError: kind %v", k)
	}
	for _, k := range failure.Kinds() {
		q := quietAgreed(k)
		if !errors.Is(q, errQuiet) || failure.KindOf(q) != k || exitCode(q) != exitCodes[k] || exitCode(unquiet(q)) != exitCodes[k] {
			t.Errorf("quietAgreed(%v): quiet %v, kind %v, exit %d", k, errors.Is(q, errQuiet), failure.KindOf(q), exitCode(q))
		}
	}
}
