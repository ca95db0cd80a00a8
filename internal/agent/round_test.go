package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

func open(rank int, path, options string) call {
	return call{rank: rank, req: Request{Op: OpOpen, Path: path, Options: options}}
}

func sum(rank int, values ...uint64) call {
	return call{rank: rank, req: Request{Op: OpAllreduce, Values: values}}
}

func TestPropose(t *testing.T) {
	for _, c := range []struct {
		name    string
		calls   []call
		exited  []int
		want    proposal
		problem string
	}{
		{name: "all exited", exited: []int{2, 3}, want: proposal{Op: opDone}},
		{name: "open", calls: []call{open(2, "/d", "batch=8"), open(3, "/d", "batch=8")},
			want: proposal{Op: OpOpen, Path: "/d", Options: "batch=8"}},
		{name: "sums wrap", calls: []call{sum(0, 1<<63, 5), sum(1, 1<<63, 6)},
			want: proposal{Op: OpAllreduce, Count: 2, Sums: []uint64{0, 11}}},
		{name: "one exited", calls: []call{sum(0, 1)}, exited: []int{1},
			problem: "rank 1 has exited while rank 0 calls allreduce"},
		{name: "calls differ", calls: []call{sum(0, 1), open(1, "/d", "")}, problem: "rank 0 calls allreduce, rank 1 calls open"},
		{name: "counts differ", calls: []call{sum(0, 1), sum(1, 1, 2)}, problem: "rank 0 sums 1 values, rank 1 2"},
		{name: "paths differ", calls: []call{open(0, "/a", ""), open(1, "/b", "")}, problem: "rank 0 opens /a, rank 1 opens /b"},
		{name: "options differ", calls: []call{open(0, "/a", "batch=8"), open(1, "/a", "batch=9")},
			problem: `rank 0 opens /a with "batch=8", rank 1 with "batch=9"`},
		{name: "bad options", calls: []call{open(0, "/a", "batch=x"), open(1, "/a", "batch=x")},
			problem: "bad option: option batch=x: want a whole number"},
		{name: "refused", calls: []call{open(0, "/a", ""), {rank: 1, req: Request{Op: OpOpen, Path: "/a",
			Refused: &Error{Kind: failure.Input, Message: "option resume: no such file"}}}}, problem: "option resume: no such file"},
	} {
		got := propose(c.calls, c.exited)
		if c.problem != "" {
			if got.Problem == nil || !strings.Contains(got.Problem.Message, c.problem) {
				t.Errorf("%s: %+v, want the problem %q", c.name, got, c.problem)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestDecide(t *testing.T) {
	done := proposal{Op: opDone}
	openA := proposal{Op: OpOpen, Path: "/a", Options: "batch=8"}
	for _, c := range []struct {
		name  string
		props []proposal
		want  outcome
		err   string
	}{
		{name: "all done", props: []proposal{done, done}, want: outcome{done: true}},
		{name: "open", props: []proposal{openA, openA}, want: outcome{open: &openA}},
		{name: "sums", props: []proposal{{Op: OpAllreduce, Count: 2, Sums: []uint64{1, 2}}, {Op: OpAllreduce, Count: 2, Sums: []uint64{1<<64 - 1, 3}}},
			want: outcome{sums: []uint64{0, 5}}},
		{name: "a problem wins", props: []proposal{openA, {Op: OpOpen, Problem: &Error{Kind: failure.Input, Message: "bad"}}},
			err: "node 1: bad"},
		{name: "one node done", props: []proposal{openA, done},
			err: "the learners of node 0 call open, those of node 1 have exited"},
		{name: "options differ", props: []proposal{openA, {Op: OpOpen, Path: "/a"}}, err: `node 0 opens /a with "batch=8", node 1 /a with ""`},
		{name: "counts differ", props: []proposal{{Op: OpAllreduce, Count: 1, Sums: []uint64{1}}, {Op: OpAllreduce, Count: 2, Sums: []uint64{1, 2}}},
			err: "node 0's learners sum 1 values, node 1's 2"},
	} {
		got := decide(c.props)
		if c.err != "" {
			if got.err == nil || !strings.Contains(got.err.Message, c.err) {
				t.Errorf("%s: %+v, want the error %q", c.name, got, c.err)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// FuzzDecodeProposals: no bytes from another agent make the decoder or
// decide panic.
func FuzzDecodeProposals(f *testing.F) {
	f.Add([]byte(`{"op":"open","path":"/a"}`), []byte(`{"op":"done"}`))
	f.Add([]byte(`{"op":"allreduce","count":1,"sums":[3]}`), []byte(`{"op":"allreduce","count":1,"sums":[]}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		props, err := decodeProposals([][]byte{a, b})
		if err != nil {
			return
		}
		decide(props)
	})
}
