//go:build !linux

package loader

// idle: only Linux sets a thread's priority; elsewhere mapAhead does not
// run (populate reports false).
func idle() {}
