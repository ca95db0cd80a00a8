//go:build nompi || !cgo

package mpi

import "errors"

// Without MPI there is no host MPI to simulate; the test skips.

var errNoHost = errors.New("no MPI in this build")

const haveMPI = false

func hostInit() error { return errNoHost }

func hostFinalize() (bool, error) { return false, errNoHost }
