//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/loaderopts"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

func TestStatusOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, statusOK},
		{topology.ErrLaunch, errLaunch},
		{withPath("p", fs.ErrNotExist), errInput},
		{loader.ErrBadOption, errArgument},
		{failf(errBusy, "x"), errBusy},
		{withPath("p", failf(errHandle, "x")), errHandle},
		{errors.New("disk on fire"), errRuntime},
		{fmt.Errorf("p: %w", loaderopts.ErrSyntax), errArgument},
		{fmt.Errorf("option resume: %w", loader.ErrResume), errInput},
		{&agent.Error{Kind: failure.Argument, Message: "m"}, errArgument},
		{withPath("p", &agent.Error{Kind: failure.Input, Message: "m"}), errInput},
		{&agent.Error{Kind: failure.Runtime, Message: "m"}, errRuntime},
		{&agent.Error{Kind: failure.Launch, Message: "m"}, errLaunch},
		{failure.Mark(errors.New("bug"), failure.Internal), errInternal},
	} {
		if got := statusOf(c.err); got != c.want {
			t.Errorf("statusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestStatuses: every Kind has its status, named for it in lmdbio.h
// (failure.Input: LMDBIO_ERR_INPUT), with the value the header gives it.
func TestStatuses(t *testing.T) {
	header, err := os.ReadFile("../../include/lmdbio.h")
	if err != nil {
		t.Fatal(err)
	}
	inHeader := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(LMDBIO_[A-Z_]+) = (-?\d+),?`).FindAllStringSubmatch(string(header), -1) {
		inHeader[m[1]], _ = strconv.Atoi(m[2])
	}
	if len(inHeader) < 12 {
		t.Fatalf("read %d statuses from lmdbio.h: %v", len(inHeader), inHeader)
	}
	seen := map[int]bool{}
	for _, k := range failure.Kinds() {
		st, ok := statuses[k]
		name := "LMDBIO_ERR_" + strings.ToUpper(k.String())
		if want, named := inHeader[name]; !ok || !named || st != want || seen[st] {
			t.Errorf("%v: status %d (mapped %v), lmdbio.h has %s = %d (named %v); statuses must differ", k, st, ok, name, want, named)
		}
		seen[st] = true
		if got := statusOf(failure.Mark(errors.New("x"), k)); got != st {
			t.Errorf("statusOf an error of kind %v = %d, want %d", k, got, st)
		}
	}
	if len(statuses) != len(failure.Kinds()) {
		t.Errorf("statuses maps %d kinds, there are %d", len(statuses), len(failure.Kinds()))
	}
	for _, st := range []int{errHandle, errBusy, errVersion, errState} {
		if seen[st] {
			t.Errorf("status %d is both a caller's error and a kind's", st)
		}
		if failure.KindOf(failf(st, "x")) != failure.Argument {
			t.Errorf("status %d: a caller's error of kind %v", st, failure.KindOf(failf(st, "x")))
		}
	}
}

// TestAgentKinds: what a learner tells its agent of comes back from the
// agent with the status the learner would have given it.
func TestAgentKinds(t *testing.T) {
	for _, k := range failure.Kinds() {
		err := failure.Mark(errors.New("m"), k)
		back := &agent.Error{Kind: failure.KindOf(err), Message: err.Error()}
		if statusOf(back) != statusOf(err) {
			t.Errorf("%v: status %d through the agent, %d without", k, statusOf(back), statusOf(err))
		}
	}
}
