// Package examples holds programs that use lmdbio as its users do, through
// its C library (c/, caffe-mpi/; built by make examples and run by test.sh),
// and the test that builds and runs the README's Go example.
package examples
