package loader

// SetEarlyShare sets the share of its cache a node may keep for records
// received early (0: no early exchange) and returns what restores it.
func SetEarlyShare(n int64) (restore func()) {
	old := earlyShare
	earlyShare = n
	return func() { earlyShare = old }
}
