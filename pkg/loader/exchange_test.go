package loader

import (
	"context"
	"errors"
	"testing"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/internal/exchange/exchangetest"
)

// TestExchangeCompletions: a value with nothing to wait for goes at once
// (no completion wrapped around nothing); one with a load waits for it and
// fails with it; a batch that takes records from an exchange waits for the
// exchange to finish.
func TestExchangeCompletions(t *testing.T) {
	if readyOf(nil) != nil {
		t.Error("readyOf(nil) is not nil: the exchange would wait on nothing")
	}
	errRead := errors.New("read failed")
	s := newSignal()
	r := readyOf(&s)
	s.finish(errRead)
	if err := r.Wait(context.Background()); !errors.Is(err, errRead) {
		t.Errorf("readyOf(a failed load).Wait: %v, want %v", err, errRead)
	}

	op := exchange.NewOp(0, 1)
	op.RecvCounts[0], op.Recv = ctlBytes, make([]byte, ctlBytes)
	var c completion = exchanged{op}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("an exchange not yet performed: wait %v, want %v", err, context.Canceled)
	}
	x, err := exchange.New(exchangetest.NewNetwork(1).Node(0), 1, mapBuffers)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x.Queue() <- op
	close(x.Queue())
	if err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(context.Background()); err != nil {
		t.Errorf("a performed exchange: wait %v", err)
	}
}
