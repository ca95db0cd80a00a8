package skipping

import "testing"

// The tests of this package all skip, as the loader's do when their
// fixtures cannot be made; mpi-tests.sh must not count such a run as a pass.

func TestNeedsAFixture(t *testing.T) { t.Skip("no fixture") }

func TestNeedsAnother(t *testing.T) { t.Skip("no fixture either") }
