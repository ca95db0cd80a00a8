package loader

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/lmdbio/lmdbio/internal/reader"
)

// countingProducer makes windows of no batches and says which it made.
type countingProducer struct {
	first   int
	windows []int // per epoch
	made    []string
}

func (p *countingProducer) memory() (int64, int64, error)             { return 0, 0, nil }
func (p *countingProducer) join([]int64, []int64, func() error) error { return nil }
func (p *countingProducer) arenaBytes() int64                         { return 0 }
func (p *countingProducer) attach(string) error                       { return nil }
func (p *countingProducer) segments() []*os.File                      { return nil }
func (p *countingProducer) configure(*runConfig)                      {}
func (p *countingProducer) firstEpoch() int                           { return p.first }
func (p *countingProducer) epochWindows(e int) (int, error)           { return p.windows[e], nil }
func (p *countingProducer) turns() int                                { return 0 }
func (p *countingProducer) readStats() reader.Stats                   { return reader.Stats{} }
func (p *countingProducer) close(bool) error                          { return nil }
func (p *countingProducer) window(_ context.Context, e, k, no int, acquire func() error, _ queues) (*window, error) {
	if err := acquire(); err != nil {
		return nil, err
	}
	p.made = append(p.made, fmt.Sprintf("e%d k%d no%d", e, k, no))
	var id uint64
	return newWindow(e, no, nil, &id), nil
}

// TestProduce: the node reader asks its producer for every window of every
// epoch from the first on, numbers them across epochs (the storage turns),
// and follows each epoch with its end.
func TestProduce(t *testing.T) {
	p := &countingProducer{first: 1, windows: []int{5, 2, 0, 3}}
	ld := &leader{nodeParts: &nodeParts{opt: Options{Epochs: 4}}, prod: p}
	pending := make(chan *window, 16)
	if err := ld.produce(context.Background(), queues{}, pending); err != nil {
		t.Fatal(err)
	}
	close(pending)
	var sent []string
	for w := range pending {
		if w.endOfEpoch {
			sent = append(sent, fmt.Sprintf("end of e%d", w.epoch))
		} else {
			sent = append(sent, fmt.Sprintf("e%d no%d", w.epoch, w.no))
		}
	}
	wantMade := []string{"e1 k0 no0", "e1 k1 no1", "e3 k0 no2", "e3 k1 no3", "e3 k2 no4"}
	wantSent := []string{"e1 no0", "e1 no1", "end of e1", "end of e2", "e3 no2", "e3 no3", "e3 no4", "end of e3"}
	if !slices.Equal(p.made, wantMade) {
		t.Errorf("made %v, want %v", p.made, wantMade)
	}
	if !slices.Equal(sent, wantSent) {
		t.Errorf("sent %v, want %v", sent, wantSent)
	}
}
