//go:build cgo

package h5lib

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/hdf5"
)

var (
	startOnce sync.Once
	calls     = make(chan call)
)

// call is a function to run on the HDF5 goroutine and where to send how it
// ended.
type call struct {
	fn   func() error
	done chan<- outcome
}

type outcome struct {
	err      error
	panicked bool
	value    any
}

// Do runs fn on the goroutine that makes every libhdf5 call of the process
// and returns fn's error. Calls run one at a time, in the order they
// arrive. fn must not call Do (nor anything in this package that does): it
// would wait for itself. A panic in fn is raised again in the caller.
func Do(fn func() error) error {
	startOnce.Do(start)
	done := make(chan outcome, 1)
	calls <- call{fn, done}
	o := <-done
	if o.panicked {
		panic(o.value)
	}
	return o.err
}

// start starts the HDF5 goroutine and waits until libhdf5 is set up.
func start() {
	ready := make(chan struct{})
	go serve(ready)
	<-ready
}

func serve(ready chan<- struct{}) {
	// A thread-safe libhdf5 keeps its error stack per thread: one thread
	// lets errorStack read what the failed call left.
	runtime.LockOSThread()
	setUp()
	close(ready)
	for c := range calls {
		c.done <- run(c.fn)
	}
}

// run calls fn, turning a panic into an outcome so that the goroutine
// survives it.
func run(fn func() error) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = outcome{panicked: true, value: v}
		}
	}()
	return outcome{err: fn()}
}

// setUp silences libhdf5's printing of error stacks (errors reach the user
// as one line through errorStack) and switches file locking off.
func setUp() {
	if err := hdf5.DisplayErrors(false); err != nil {
		panic(fmt.Sprintf("h5lib: %v", err))
	}
	disableFileLocking()
}
