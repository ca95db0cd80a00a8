package loader

// guard checks, once per window, that the dataset is still the snapshot the
// index describes.
type guard interface {
	check() error
	close() error
}

// noGuard checks nothing.
type noGuard struct{}

func (noGuard) check() error { return nil }
func (noGuard) close() error { return nil }

// openGuard opens the dataset's guard for a node reader.
func openGuard(ds *dataset) (guard, error) { return noGuard{}, nil }
