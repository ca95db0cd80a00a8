//go:build !linux

package gen

// writeback does nothing where sync_file_range does not exist.
type writeback struct{}

func newWriteback(string) *writeback { return &writeback{} }
func (w *writeback) start()          {}
func (w *writeback) close()          {}
