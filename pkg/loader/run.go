package loader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lmdbio/lmdbio/internal/handoff"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// run produces every epoch, then ends. The parts work at once: the producer
// plans windows and takes arena room, the I/O workers keep IODepth reads
// in flight, the decoders decode, the exchanger trades records with the
// other nodes, the releaser passes the storage turn on when a window's
// reads are done, and the sender hands each batch out as soon as what it
// needs is there. On failure the learners are told why.
func (ld *leader) run(ctx context.Context) {
	defer close(ld.done)
	ioq := make(chan storageRead, 1024)
	decq := make(chan *decode, 1024)
	xq := (chan<- *exchangeOp)(nil)
	pending := make(chan *window, ld.opt.Prefetch+1)
	turns := make(chan *window, ld.opt.Prefetch+2)
	settle := make(chan *window, ld.opt.Prefetch+2)
	var workers, helpers sync.WaitGroup
	for range ld.opt.IODepth {
		workers.Go(func() {
			for l := range ioq {
				l.run(ctx)
			}
		})
	}
	for range decodeWorkers() {
		workers.Go(func() {
			for d := range decq {
				d.run(ctx)
			}
		})
	}
	var xchgErr, sendErr, turnErr error
	if ld.xchg != nil {
		xq = ld.xchg.Queue()
		helpers.Go(func() {
			if xchgErr = ld.xchg.Run(ctx); xchgErr != nil {
				ld.stop(xchgErr)
			}
		})
	}
	helpers.Go(func() {
		if turnErr = ld.passTurns(ctx, turns); turnErr != nil {
			ld.stop(turnErr)
		}
	})
	helpers.Go(func() { ld.settle(ctx, settle) })
	helpers.Go(func() {
		if sendErr = ld.send(ctx, pending, turns, settle); sendErr != nil {
			ld.stop(sendErr)
		}
	})
	err := ld.produce(ctx, queues{io: ioq, decode: decq, xchg: xq}, pending)
	close(pending)
	if xq != nil {
		close(xq)
	}
	helpers.Wait()
	close(ioq)
	close(decq)
	workers.Wait()
	for _, e := range []error{sendErr, xchgErr, turnErr} {
		if err == nil || errors.Is(err, context.Canceled) && e != nil {
			err = e
		}
	}
	ld.err = ld.firstError(err)
	if ld.err != nil && !ld.closing.Load() {
		_ = ld.server.Fail(ld.err.Error(), failure.KindOf(ld.err))
	}
	if ld.xchg != nil && failedHere(ld.err) {
		// Even when its own learners have all gone (each may have found
		// the fault itself), the other node readers may be waiting for
		// this one in an exchange.
		ld.xchg.Notify(ld.err)
	}
}

// failedHere reports whether err, how a node reader's run ended, is a
// failure on this node: not a stop that every node reader agreed on or that
// Close asked for, and not another node's failure.
func failedHere(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errStopped) &&
		!errors.Is(err, reader.ErrStopped) && !errors.Is(err, errNodeFailed)
}

// decodeWorkers is the number of goroutines decoding blocks.
func decodeWorkers() int { return max(2, runtimeCPUs()) }

// acquire returns the function that waits for the node's turn on storage
// for window no.
func (ld *leader) acquire(no int) func() error {
	if ld.stag == nil {
		return func() error { return nil }
	}
	return func() error {
		if err := ld.stag.Acquire(no); err != nil {
			return fmt.Errorf("waiting for the storage token: %w", err)
		}
		return nil
	}
}

// waitTurnPassed waits, with staggering, until window w's storage turn was
// passed on: the next turn comes after it.
func (ld *leader) waitTurnPassed(ctx context.Context, w *window) error {
	if ld.stag == nil {
		return nil
	}
	select {
	case <-w.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// passTurns passes each window's storage turn on once its reads are done,
// whatever the learners and the exchange do: another node's exchange of
// this window may wait for that node's reads, which wait for this turn.
func (ld *leader) passTurns(ctx context.Context, turns <-chan *window) error {
	for w := range turns {
		if ld.stag == nil {
			continue
		}
		for _, l := range w.loads {
			if err := l.wait(ctx); err != nil {
				return err
			}
		}
		if err := ld.stag.Release(w.no); err != nil {
			return fmt.Errorf("passing the storage token: %w", err)
		}
		close(w.released)
	}
	return nil
}

// settle frees each window's own hold on its arena room once its reads and
// its exchange are done.
func (ld *leader) settle(ctx context.Context, windows <-chan *window) {
	for w := range windows {
		for _, l := range w.loads {
			if l.wait(ctx) != nil {
				return
			}
		}
		if w.xchg != nil && w.xchg.Wait(ctx) != nil {
			return
		}
		ld.release(w.hold)
	}
}

// send hands out each window's batches, each as soon as what it needs is
// there, and queues the window for its storage turn to be passed on and
// its room to be settled.
func (ld *leader) send(ctx context.Context, pending <-chan *window, turns, settle chan<- *window) error {
	defer close(turns)
	defer close(settle)
	for w := range pending {
		if w.endOfEpoch {
			for local := 0; local < ld.learners; local++ {
				err := ld.server.Send(local, handoff.EndOfEpoch{Epoch: uint32(w.epoch)})
				if err != nil && !errors.Is(err, handoff.ErrPeerClosed) {
					return err
				}
			}
			ld.allSent.Store(w.epoch == ld.opt.Epochs-1)
			continue
		}
		if err := sendCtx(ctx, turns, w); err != nil {
			return err
		}
		if err := sendCtx(ctx, settle, w); err != nil {
			return err
		}
		for i, b := range w.batches {
			for _, c := range w.needs[i] {
				if err := c.wait(ctx); err != nil {
					return err
				}
			}
			if err := ld.sendBatch(b.local, handoff.Batch{ID: w.ids[i], Epoch: uint32(w.epoch), Items: w.items[i]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendBatch hands a batch to its learner, or straight back to the arena
// when the learner has closed.
func (ld *leader) sendBatch(local int, m handoff.Batch) error {
	if !ld.holds.give(local, m.ID) {
		ld.release(m.ID)
		return nil
	}
	err := ld.server.Send(local, m)
	if errors.Is(err, handoff.ErrPeerClosed) {
		if give, _ := ld.holds.take(local, m.ID); give { // unless the Bye already returned it
			ld.release(m.ID)
		}
		return nil
	}
	return err
}

// sendCtx sends v on c unless ctx ends first.
func sendCtx[T any](ctx context.Context, c chan<- T, v T) error {
	select {
	case c <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch frees arena space as learners release batches, and stops the
// producer at the first learner that fails. It runs until the server closes.
func (ld *leader) watch() {
	releases, byes, errs := ld.server.Releases(), ld.server.Byes(), ld.server.Errors()
	for releases != nil || byes != nil || errs != nil {
		select {
		case r, ok := <-releases:
			if !ok {
				releases = nil
			} else if give, err := ld.holds.take(r.Learner, r.ID); err != nil {
				ld.stop(err)
			} else if give {
				ld.release(r.ID)
			}
		case local, ok := <-byes:
			if !ok {
				byes = nil
				continue
			}
			for _, id := range ld.holds.close(local) {
				ld.release(id)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
			} else {
				ld.stop(err)
			}
		}
	}
}

// release returns a batch's arena room.
func (ld *leader) release(id uint64) {
	if err := ld.arena.release(id); err != nil {
		ld.stop(err)
	}
}

// stop records the first failure and stops the producer.
func (ld *leader) stop(err error) {
	select {
	case ld.failed <- err:
	default:
	}
	ld.cancel()
}

// stopAgreed reports whether the node readers agreed to stop early.
func (ld *leader) stopAgreed() bool {
	if ld.xchg == nil {
		return false
	}
	select {
	case <-ld.xchg.Stopped():
		return true
	default:
		return false
	}
}

// firstError prefers a learner's failure, which is usually why producing
// stopped, over the producer's own symptom of it.
func (ld *leader) firstError(err error) error {
	failed := ld.failed
	select {
	case f := <-failed:
		return f
	default:
	}
	if errors.Is(err, context.Canceled) {
		if ld.closing.Load() {
			return err
		}
		select {
		case f := <-failed:
			return f
		case <-time.After(time.Second):
		}
	}
	return err
}
