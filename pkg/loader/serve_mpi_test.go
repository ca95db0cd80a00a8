package loader_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// TestMPIServe: every rank serves learners that are not MPI ranks (here,
// goroutines that Attach to its socket, as the processes of lmdbio run
// --agent do): every record once per epoch over all of them, the right
// bytes, the same batch count for every learner, with and without a
// shuffle that exchanges records between the nodes.
func TestMPIServe(t *testing.T) {
	fx := makeFixture(t, "mixed", mixedDB)
	topo := virtual(t, 1) // every rank a node of its own
	for _, sh := range []sampler.Shuffle{sampler.None, sampler.Global} {
		t.Run(sh.String(), func(t *testing.T) {
			defer watchdog(t.Name(), readTimeout)()
			const learners = 3
			opt := loader.Options{Topology: topo, Batch: 4, Remainder: assign.Keep, Epochs: 2, Shuffle: sh, Seed: 2,
				Index: index.LoadOptions{NoCache: true}}
			r, err := loader.Serve(fx.Dir, opt, learners)
			if !agree(t, err == nil, "Serve") {
				t.Fatalf("Serve: %v", err)
			}
			var wg sync.WaitGroup
			got := make([][][]int64, learners) // learner, epoch: records
			batches := make([]int, learners)
			problems := make([]*delivery, learners)
			for local := range learners {
				problems[local] = &delivery{}
				wg.Go(func() { got[local], batches[local] = attachAndRead(problems[local], fx, r.Socket(), local, opt) })
			}
			startErr := r.Start(20 * time.Second)
			wg.Wait()
			closeErr := r.Close()
			ok := startErr == nil && closeErr == nil
			if !ok {
				t.Errorf("Start: %v, Close: %v", startErr, closeErr)
			}
			for _, d := range problems {
				for _, p := range d.problems {
					t.Error(p)
					ok = false
				}
			}
			for l := range learners {
				if batches[l] != batches[0] {
					t.Errorf("learner %d got %d batches, learner 0 %d", l, batches[l], batches[0])
				}
			}
			if !agree(t, ok, "serving") {
				return
			}
			for e := range opt.Epochs {
				var mine []int64
				for l := range learners {
					mine = append(mine, got[l][e]...)
				}
				checkEpoch(t, fx, mine, true)
			}
			checkNoSegments(t)
		})
	}
}

// attachAndRead attaches learner local to socket and reads every epoch,
// checking the bytes. It returns the records of each epoch and the batch
// count.
func attachAndRead(d *delivery, fx *fixture, socket string, local int, opt loader.Options) ([][]int64, int) {
	ld, err := loader.Attach(socket, local)
	if err != nil {
		d.problem("learner %d: Attach: %v", local, err)
		return nil, 0
	}
	defer func() {
		if err := ld.Close(); err != nil {
			d.problem("learner %d: Close: %v", local, err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	out := make([][]int64, opt.Epochs)
	n := 0
	for e := range opt.Epochs {
		for {
			b, err := ld.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				d.problem("learner %d: epoch %d: Next: %v", local, e, err)
				return out, n
			}
			d.check(b, fx, opt.Batch, false, fmt.Sprintf("learner %d epoch %d", local, e))
			for _, r := range b.Records {
				out[e] = append(out[e], int64(r))
			}
			n++
		}
	}
	if ld.Records() != fx.Records() {
		d.problem("learner %d: Records() = %d, want %d", local, ld.Records(), fx.Records())
	}
	return out, n
}
