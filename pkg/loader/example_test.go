package loader_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/lmdbio/lmdbio/internal/gen"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// Example is a Go trainer's loop: every rank of the job opens the dataset
// with the job's topology and takes its batches, epoch after epoch. Next
// says io.EOF at the end of each epoch.
func Example() {
	dir, err := os.MkdirTemp("", "lmdbio-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := gen.Write(dir, gen.Options{Records: 100, MeanSize: 1000, Seed: 1}); err != nil {
		log.Fatal(err)
	}

	t, err := topology.Discover(mpi.World()) // collective: every rank calls it
	if err != nil {
		log.Fatal(err)
	}
	defer t.Free()
	const epochs = 2
	ld, err := loader.Open(dir, loader.Options{Topology: t, Batch: 10, Epochs: epochs, Shuffle: sampler.Global, Seed: 1})
	if err != nil {
		log.Fatalf("%v (a failure of kind %v)", err, failure.KindOf(err))
	}
	defer ld.Close()
	records := 0
	for range epochs {
		for {
			b, err := ld.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				log.Fatal(err)
			}
			records += len(b.Values) // the views are valid until the next Next
		}
	}
	if t.Size == 1 {
		fmt.Println(records, "records in", epochs, "epochs")
	}
	// Output: 200 records in 2 epochs
}
