package exchange_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lmdbio/lmdbio/internal/exchange"
	"github.com/lmdbio/lmdbio/internal/exchange/exchangetest"
)

// onNodes runs node(r) for every node of net at once, each on its own
// goroutine, and fails the test with what each returned; a node that does
// not return within a minute fails it as a hang.
func onNodes(t *testing.T, net *exchangetest.Network, nodes int, node func(exchange.Transport) error) {
	t.Helper()
	errs := make(chan error, nodes)
	for r := range nodes {
		go func() {
			if err := node(net.Node(r)); err != nil {
				errs <- fmt.Errorf("node %d: %w", r, err)
				return
			}
			errs <- nil
		}()
	}
	timeout := time.After(time.Minute)
	for range nodes {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			t.Fatal("the nodes did not finish within a minute: an exchange hangs")
		}
	}
	for r := range nodes {
		if n := net.Posted(r); n > 0 {
			t.Errorf("node %d left %d receives posted", r, n)
		}
	}
}

// TestExchangePieces: among 1 to 4 nodes in one process, streams several
// pieces long, cut into messages and reassembled, arrive whole and in
// place, received in place and with pwrite: with some pairs empty, with
// every pair sending, and with none sending but the control words.
func TestExchangePieces(t *testing.T) {
	none := func(from, to int) bool { return false }
	for nodes := 1; nodes <= 4; nodes++ {
		for name, some := range map[string]func(from, to int) bool{"some pairs empty": someEmpty(nodes), "all pairs": allPairs, "no pair": none} {
			t.Run(fmt.Sprintf("%d nodes, %s", nodes, name), func(t *testing.T) {
				onNodes(t, exchangetest.NewNetwork(nodes), nodes, func(tr exchange.Transport) error {
					return exchangePieces(tr, pieces(nodes, some))
				})
			})
		}
	}
}

// TestExchangeManyMessages: more packed messages than the send ring has
// buffers, and more large values than may be in flight at once, so that
// both wait for earlier sends to complete before they go on.
func TestExchangeManyMessages(t *testing.T) {
	const nodes = 3
	tr := func(from, to int) []int {
		if from == to {
			return nil
		}
		var lens []int
		for i := range 9 * 70 { // 9 packed messages of 70 values for each peer
			lens = append(lens, 14000+i%1000+from)
		}
		for i := range 70 { // of one piece each, 70 direct messages for each peer
			lens = append(lens, 16<<10+i+to)
		}
		return lens
	}
	onNodes(t, exchangetest.NewNetwork(nodes), nodes, func(t exchange.Transport) error {
		return exchangePieces(t, tr)
	})
}

// loadLate is a value's load that has not finished: the value's bytes are
// zero until Wait, which writes them, as a read from storage would.
type loadLate struct {
	value, bytes []byte
}

func (l loadLate) Wait(context.Context) error {
	copy(l.value, l.bytes)
	return nil
}

// TestExchangeWaitsForLoads: a value is sent only once what it needs has
// finished.
func TestExchangeWaitsForLoads(t *testing.T) {
	const nodes = 3
	tr := pieces(nodes, allPairs)
	onNodes(t, exchangetest.NewNetwork(nodes), nodes, func(t exchange.Transport) error {
		me := t.Rank()
		op := layOut(me, nodes, 0, tr)
		for _, parts := range op.Parts {
			for i, p := range parts {
				l := loadLate{value: p.Value, bytes: append([]byte(nil), p.Value...)}
				clear(p.Value)
				parts[i].Need = l
			}
		}
		x, err := exchangeAll(t, []*exchange.Op{op}, nil)
		if x != nil {
			defer x.Close()
		}
		return errors.Join(err, check(op, me, tr))
	})
}

// TestExchangeStop: a node that says it stops ends the exchanges of every
// node after that exchange: it completes, the later ones fail with
// ErrStopped, and Run ends without an error.
func TestExchangeStop(t *testing.T) {
	const nodes = 4
	tr := pieces(nodes, someEmpty(nodes))
	onNodes(t, exchangetest.NewNetwork(nodes), nodes, func(t exchange.Transport) error {
		me := t.Rank()
		ops := []*exchange.Op{layOut(me, nodes, 0, tr), layOut(me, nodes, 1, tr), layOut(me, nodes, 2, tr)}
		x, err := exchangeAll(t, ops, func(x *exchange.Exchanger) {
			if me == 2 {
				x.AnnounceStop()
			}
		})
		if x != nil {
			defer x.Close()
		}
		if err != nil {
			return fmt.Errorf("Run: %w", err)
		}
		select {
		case <-x.Stopped():
		default:
			return errors.New("the node readers did not agree to stop")
		}
		errs := []error{ops[0].Wait(context.Background()), check(ops[0], me, tr)}
		for _, op := range ops[1:] {
			if err := op.Wait(context.Background()); !errors.Is(err, exchange.ErrStopped) {
				errs = append(errs, fmt.Errorf("exchange %d after the stop: %v, want %v", op.No, err, exchange.ErrStopped))
			}
		}
		return errors.Join(errs...)
	})
}

// failNode runs node's part of two exchanges in which node failed sends
// nothing: the first value it would send fails to load with errLoad.
// Every node notifies the others of a failure of its own, as the node
// reader does, and closes; it returns how its exchanges ended.
func failNode(t exchange.Transport, failed int, prepare func(*exchange.Exchanger)) ([]error, *exchange.Exchanger, error) {
	me, nodes := t.Rank(), t.Size()
	tr := pieces(nodes, allPairs)
	ops := []*exchange.Op{layOut(me, nodes, 0, tr), layOut(me, nodes, 1, tr)}
	if me == failed {
		ops[0].Parts[(me+1)%nodes][0].Need = failedLoad{}
	}
	x, err := exchangeAll(t, ops, prepare)
	if x == nil {
		return nil, nil, err
	}
	if err != nil && !errors.Is(err, exchange.ErrNodeFailed) {
		x.Notify(err)
	}
	x.Close()
	return []error{ops[0].Wait(context.Background()), ops[1].Wait(context.Background())}, x, err
}

var errLoad = errors.New("the read failed")

type failedLoad struct{}

func (failedLoad) Wait(context.Context) error { return errLoad }

// TestExchangePeerFailure: a node whose exchange fails drops it, and tells
// the others, whose exchanges fail with ErrNodeFailed, naming it and why;
// every exchange after fails alike, every node let go of its sends, and no
// receive is left posted.
func TestExchangePeerFailure(t *testing.T) {
	for _, nodes := range []int{3, 4} {
		const failed = 1
		onNodes(t, exchangetest.NewNetwork(nodes), nodes, func(t exchange.Transport) error {
			outcomes, x, err := failNode(t, failed, nil)
			if x == nil {
				return err
			}
			want := errLoad
			if t.Rank() != failed {
				want = exchange.ErrNodeFailed
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("node %d: exchange of window 0: %v", failed, errLoad)) {
					return fmt.Errorf("Run: %v, want the failure of node %d", err, failed)
				}
			}
			errs := []error{}
			for i, got := range append(outcomes, err) {
				if !errors.Is(got, want) {
					errs = append(errs, fmt.Errorf("outcome %d: %v, want %v", i, got, want))
				}
			}
			if !x.Dropped() || !x.SendsLetGo() {
				errs = append(errs, errors.New("the failed exchange's sends were not let go of"))
			}
			return errors.Join(errs...)
		})
	}
}

// TestExchangeTransportFails: a send the transport refuses fails the
// exchange of its node, which tells the others as a failed load does.
func TestExchangeTransportFails(t *testing.T) {
	const nodes, broken = 3, 2
	net := exchangetest.NewNetwork(nodes)
	net.FailSend(broken, 3)
	onNodes(t, net, nodes, func(t exchange.Transport) error {
		outcomes, x, err := failNode(t, -1, nil)
		if x == nil {
			return err
		}
		if t.Rank() == broken {
			if !errors.Is(err, exchangetest.ErrRefused) || !errors.Is(outcomes[1], exchangetest.ErrRefused) {
				return fmt.Errorf("Run: %v, exchanges %v, want %v", err, outcomes, exchangetest.ErrRefused)
			}
			return nil
		}
		if !errors.Is(err, exchange.ErrNodeFailed) {
			return fmt.Errorf("Run: %v, want %v", err, exchange.ErrNodeFailed)
		}
		return nil
	})
}
