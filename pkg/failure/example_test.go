package failure_test

import (
	"fmt"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

// ErrCorrupt is a sentinel of Kind Input, as a package declares it.
var ErrCorrupt = failure.New(failure.Input, "mydata: corrupt")

func Example() {
	err := fmt.Errorf("mydata: record 7: %w", ErrCorrupt)
	fmt.Println(failure.KindOf(err))
	fmt.Println(failure.KindOf(fmt.Errorf("reading: i/o error")))
	fmt.Println(failure.KindOf(failure.Mark(err, failure.Argument)))
	// Output:
	// input
	// runtime
	// argument
}
