package cli

import (
	"encoding/json"
	"fmt"
	"io"
)

// PrintJSON writes v to w as one JSON object on a line of its own: the
// shape of every --json output, which scripts read line by line.
func PrintJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
