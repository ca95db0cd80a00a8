//go:build cgo

package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/lmdbio/lmdbio/internal/startup"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// fakeSource hands out batches of one record per call: perEpoch of them,
// then io.EOF, for ever. A call blocks while gate is non-nil and open.
type fakeSource struct {
	perEpoch, served int
	gate             chan struct{}
	entered          chan struct{}
	fail             error
	closed           bool
	data             []byte
}

func (f *fakeSource) Next(context.Context) (loader.Batch, error) {
	if f.gate != nil {
		f.entered <- struct{}{}
		<-f.gate
	}
	if f.fail != nil {
		return loader.Batch{}, f.fail
	}
	f.served++
	if f.served%(f.perEpoch+1) == 0 {
		return loader.Batch{}, io.EOF
	}
	r := f.served - f.served/(f.perEpoch+1) - 1
	return loader.Batch{Records: []int{r}, Keys: [][]byte{f.data[:1]}, Values: [][]byte{f.data}}, nil
}

func (f *fakeSource) Records() int        { return f.perEpoch }
func (f *fakeSource) Rounds() int         { return f.perEpoch }
func (f *fakeSource) Epoch() int          { return f.served / (f.perEpoch + 1) }
func (f *fakeSource) State() loader.State { return loader.State{Epoch: f.Epoch()} }
func (f *fakeSource) Close() error        { f.closed = true; return nil }
func newFake(perEpoch int) *fakeSource    { return &fakeSource{perEpoch: perEpoch, data: []byte("value")} }

func nextOf(t *testing.T, id uintptr) (int, error) {
	t.Helper()
	h, err := acquire(id)
	if err != nil {
		return statusOf(err), err
	}
	defer h.busy.Unlock()
	st, err := h.next()
	if err != nil {
		st = statusOf(err)
	}
	return st, err
}

func TestHandleEpochs(t *testing.T) {
	src := newFake(2)
	id := register(&handle{src: src, path: "ds", epochs: 2})
	var got []int
	for range 8 {
		st, err := nextOf(t, id)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, st)
	}
	want := []int{statusOK, statusOK, statusEndOfEpoch, statusOK, statusOK, statusEndOfEpoch, statusDone, statusDone}
	if !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if err := closeHandle(id); err != nil || !src.closed {
		t.Fatalf("close: %v (source closed: %v)", err, src.closed)
	}
}

// TestHandleResumed: a run resumed in its last epoch ends after that epoch.
func TestHandleResumed(t *testing.T) {
	id := register(&handle{src: newFake(2), path: "ds", epochs: 2, ended: 1})
	defer closeHandle(id)
	var got []int
	for range 5 {
		st, err := nextOf(t, id)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, st)
	}
	if want := []int{statusOK, statusOK, statusEndOfEpoch, statusDone, statusDone}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

func TestHandleFailureSticks(t *testing.T) {
	src := newFake(5)
	src.fail = fs.ErrNotExist
	id := register(&handle{src: src, path: "ds", epochs: 1})
	defer closeHandle(id)
	for range 2 {
		st, err := nextOf(t, id)
		if st != errInput || err == nil || !strings.HasPrefix(err.Error(), "ds: ") {
			t.Errorf("status %d, error %v; want %d and the path first", st, err, errInput)
		}
	}
}

func TestHandleBusyAndClosed(t *testing.T) {
	src := newFake(3)
	src.gate, src.entered = make(chan struct{}), make(chan struct{})
	id := register(&handle{src: src, path: "ds", epochs: 1})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if st, err := nextOf(t, id); st != statusOK {
			t.Errorf("the first caller: status %d, %v", st, err)
		}
	}()
	<-src.entered // the first caller is inside Next
	if st, err := nextOf(t, id); st != errBusy || !strings.Contains(err.Error(), "another thread") {
		t.Errorf("a second caller: status %d, %v; want busy", st, err)
	}
	if err := closeHandle(id); statusOf(err) != errBusy {
		t.Errorf("close during a call: %v, want busy", err)
	}
	close(src.gate)
	wg.Wait()
	src.gate = nil
	if err := closeHandle(id); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   uintptr
		want string
	}{{id, "was closed"}, {0, "NULL"}, {id + 1000, "not a loader handle"}} {
		st, err := nextOf(t, c.id)
		if st != errHandle || !strings.Contains(err.Error(), c.want) {
			t.Errorf("handle %#x: status %d, %v; want %q", c.id, st, err, c.want)
		}
	}
}

func TestViewsFill(t *testing.T) {
	var v views
	defer v.free()
	keys := [][]byte{[]byte("k0"), {}, []byte("k2")}
	values := [][]byte{[]byte("zero"), []byte("one"), {}}
	labels := [][]byte{{1}, {2, 0}, {}}
	if err := v.fill(loader.Batch{Epoch: 3, Records: []int{7, 8, 9}, Keys: keys, Values: values, Labels: labels}); err != nil {
		t.Fatal(err)
	}
	ptrs, lens := cArray[unsafe.Pointer](v.values, 3), cArray[uint](v.valueLens, 3)
	lptrs, llens := cArray[unsafe.Pointer](v.labels, 3), cArray[uint](v.labelLens, 3)
	recs := cArray[int64](v.records, 3)
	for i := range values {
		if lens[i] != uint(len(values[i])) || llens[i] != uint(len(labels[i])) || recs[i] != int64(7+i) {
			t.Errorf("view %d: length %d, label length %d, record %d", i, lens[i], llens[i], recs[i])
		}
		if len(values[i]) > 0 && ptrs[i] != unsafe.Pointer(&values[i][0]) || len(labels[i]) > 0 && lptrs[i] != unsafe.Pointer(&labels[i][0]) {
			t.Errorf("view %d points to a copy", i)
		}
	}
	big := make([][]byte, 1000)
	for i := range big {
		big[i] = []byte{byte(i)}
	}
	if err := v.fill(loader.Batch{Records: make([]int, 1000), Keys: big, Values: big}); err != nil || v.cap < 1000 {
		t.Fatalf("a batch larger than the arrays: %v (room for %d)", err, v.cap)
	}
	if err := v.fill(loader.Batch{Records: []int{1}, Keys: keys, Values: values}); err == nil {
		t.Error("a batch with fewer record numbers than keys was taken")
	}
}

func TestCallRecovers(t *testing.T) {
	if st := int(call(nil, func() (int, error) { panic("boom") })); st != errInternal {
		t.Errorf("a panic: status %d, want %d", st, errInternal)
	}
	if st := int(call(nil, func() (int, error) {
		var h *handle
		return h.epochs, nil
	})); st != errInternal {
		t.Errorf("a nil dereference: status %d, want %d", st, errInternal)
	}
	if st := int(call(nil, func() (int, error) { return statusDone, nil })); st != statusDone {
		t.Errorf("a positive status: %d, want %d", st, statusDone)
	}
}

// TestLaunchSettings: a bad value of a variable that says how lmdbio starts
// in MPI is a launch error, not an argument of lmdbio_init.
func TestLaunchSettings(t *testing.T) {
	for _, c := range []struct{ timeout, perNode, want string }{
		{"soon", "", startup.Env},
		{"0s", "", startup.Env},
		{"", "0", topology.RanksPerNodeEnv},
		{"", "two", topology.RanksPerNodeEnv},
	} {
		t.Setenv(startup.Env, c.timeout)
		t.Setenv(topology.RanksPerNodeEnv, c.perNode)
		_, _, err := launchSettings()
		if statusOf(err) != errLaunch || !strings.HasPrefix(err.Error(), c.want+"=") {
			t.Errorf("%s=%q %s=%q: %v (status %d), want %d naming %s", startup.Env, c.timeout,
				topology.RanksPerNodeEnv, c.perNode, err, statusOf(err), errLaunch, c.want)
		}
	}
	t.Setenv(startup.Env, "")
	t.Setenv(topology.RanksPerNodeEnv, "2")
	if limit, perNode, err := launchSettings(); err != nil || limit != startup.Default || perNode != 2 {
		t.Errorf("good settings: %v %d %v", limit, perNode, err)
	}
}

// TestParseOpen: an empty path is refused as an argument, as NULL is, and
// the options' faults keep their statuses.
func TestParseOpen(t *testing.T) {
	for _, c := range []struct {
		path, options, state string
		want                 int
	}{
		{"", "batch=3", "", errArgument},
		{"ds", "colour=blue", "", errArgument},
		{"ds", "batch=0", "", errArgument},
		{"ds", "resume=/nonexistent/state.json", "", errInput},
		{"ds", "batch=3", "", statusOK},
		{"ds", "views=off", "", statusOK},
		{"ds", "batch=3", "/nonexistent/state.json", errInput},
		{"ds", "batch=3", `{"version":1}`, errInput},
		{"ds", "resume=/nonexistent/state.json", "/nonexistent/state.json", errInput},
		{"ds", "batch=0", "/nonexistent/state.json", errArgument},
	} {
		_, err := parseOpen(c.path, c.options, c.state)
		if got := statusOf(err); got != c.want {
			t.Errorf("parseOpen(%q, %q, %q): status %d (%v), want %d", c.path, c.options, c.state, got, err, c.want)
		}
	}
	if err := withPath("", failure.Mark(errors.New("lmdbio_open: the path is empty"), failure.Argument)); err.Error() != "lmdbio_open: the path is empty" {
		t.Errorf("an empty path in front: %q", err)
	}
}
