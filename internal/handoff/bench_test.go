package handoff

import (
	"fmt"
	"testing"
)

// BenchmarkHandoff measures the node-local hand-off of one batch: the
// leader sends its descriptor, the learner receives it and releases it, and
// the leader sees the release. The bytes counted are the batch's values
// (64 records of ~110 KB, ResNet-50's batch), which travel no further than
// the shared arena: this is the rate at which descriptors could deliver them.
func BenchmarkHandoff(b *testing.B) {
	for _, items := range []int{1, 64, 512} {
		b.Run(fmt.Sprintf("items=%d", items), func(b *testing.B) {
			s, clients := startNode(b, 1)
			ctx := testCtx(b)
			batch := Batch{Items: make([]Item, items)}
			for i := range batch.Items {
				batch.Items[i] = Item{Record: int64(i), Offset: int64(i) * 110 << 10, Length: 110 << 10}
			}
			b.SetBytes(int64(items) * 110 << 10)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				batch.ID = uint64(i + 1)
				if err := s.Send(0, batch); err != nil {
					b.Fatal(err)
				}
				m, err := clients[0].Recv(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := clients[0].Release(m.(Batch).ID); err != nil {
					b.Fatal(err)
				}
				<-s.Releases()
			}
		})
	}
}
