package cli

import "fmt"

// HumanBytes formats n with a binary unit.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// WithPath puts the dataset's path in front of an error, as every error
// about a dataset reads: "lmdbio: PATH: what is wrong".
func WithPath(path string, err error) error {
	if err == nil {
		return nil
	}
	return &pathError{path: path, err: err}
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }
