package loader

import (
	"encoding/json"
	"fmt"
)

func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("loader: decoding a peer's message: %w", err)
	}
	return nil
}
