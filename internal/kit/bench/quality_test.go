package bench

import (
	"math"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/sampler"
)

func qualityRun() QualityOptions {
	return QualityOptions{Records: 12000, RecordBytes: 100 << 10, NodeSizes: []int{2, 2, 2, 2}, Batch: 32,
		ChunkBytes: 16 << 20, ChunkWindow: 4, Seed: 7, Epochs: 2}
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

func TestShuffleQualityGlobalIsUniform(t *testing.T) {
	for _, locality := range []bool{true, false} {
		q, err := ShuffleQuality(qualityRun(), sampler.Global, locality)
		if err != nil {
			t.Fatal(err)
		}
		// 12000 records in global batches of 256: ideal ≈ 255/11999.
		if !near(q.SameBatchIdeal, 255.0/11999, 0.01) {
			t.Errorf("ideal same-batch %v", q.SameBatchIdeal)
		}
		if !near(q.SameBatch, q.SameBatchIdeal, 0.25) || !near(q.Displacement, q.DisplacementIdeal, 0.05) {
			t.Errorf("global (locality %v): same batch %v (ideal %v), displacement %v (ideal %v)",
				locality, q.SameBatch, q.SameBatchIdeal, q.Displacement, q.DisplacementIdeal)
		}
		if !near(q.SameBatchNextEpoch, q.SameBatchIdeal, 0.25) {
			t.Errorf("global: pairs together again in the next epoch %v, ideal %v", q.SameBatchNextEpoch, q.SameBatchIdeal)
		}
		// Without locality a record lands on its own node one time in four.
		if locality && q.CrossNode > 0.1 || !locality && !near(q.CrossNode, 0.75, 0.05) {
			t.Errorf("global, locality %v: cross-node share %v", locality, q.CrossNode)
		}
	}
}

func TestShuffleQualityLocalityKeepsBatches(t *testing.T) {
	for _, s := range []sampler.Shuffle{sampler.Chunk, sampler.Global} {
		on, err1 := ShuffleQuality(qualityRun(), s, true)
		off, err2 := ShuffleQuality(qualityRun(), s, false)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if on.SameBatch != off.SameBatch || on.SameBatchNextEpoch != off.SameBatchNextEpoch {
			t.Errorf("%v: locality changed the global batches: %+v vs %+v", s, on, off)
		}
		if on.CrossNode >= off.CrossNode {
			t.Errorf("%v: locality on moves %v of the records, off %v", s, on.CrossNode, off.CrossNode)
		}
	}
}

func TestShuffleQualityNoneAndChunk(t *testing.T) {
	o := qualityRun()
	o.NodeSizes = []int{4}
	none, err := ShuffleQuality(o, sampler.None, true)
	if err != nil {
		t.Fatal(err)
	}
	// One node in file order: every record keeps its place, and only the
	// pairs across a batch boundary are apart.
	rounds := (o.Records + 127) / 128
	if none.Displacement != 0 || none.CrossNode != 0 || !near(none.SameBatch, float64(o.Records-rounds)/float64(o.Records-1), 1e-9) ||
		none.SameBatchNextEpoch != 1 {
		t.Errorf("none: %+v", none)
	}
	chunk, err := ShuffleQuality(o, sampler.Chunk, true)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks of 164 records, windows of 4 chunks: neighbours share a batch
	// far more often than under a uniform permutation, far less than in
	// file order.
	if !(chunk.SameBatch > 3*chunk.SameBatchIdeal && chunk.SameBatch < 0.5*none.SameBatch) {
		t.Errorf("chunk same batch %v, ideal %v, none %v", chunk.SameBatch, chunk.SameBatchIdeal, none.SameBatch)
	}
	local, err := ShuffleQuality(qualityRun(), sampler.Local, true)
	if err != nil {
		t.Fatal(err)
	}
	if local.CrossNode != 0 {
		t.Errorf("local moves %v of the records between nodes", local.CrossNode)
	}
}

func TestShuffleQualityBadInput(t *testing.T) {
	for _, o := range []QualityOptions{
		{Records: 1, RecordBytes: 1, NodeSizes: []int{1}, Batch: 1, ChunkBytes: 1, ChunkWindow: 1, Epochs: 1},
		{Records: 10, RecordBytes: 0, NodeSizes: []int{1}, Batch: 1, ChunkBytes: 1, ChunkWindow: 1, Epochs: 1},
		{Records: 10, RecordBytes: 1, NodeSizes: []int{1}, Batch: 0, ChunkBytes: 1, ChunkWindow: 1, Epochs: 1},
		{Records: 10, RecordBytes: 1, NodeSizes: nil, Batch: 1, ChunkBytes: 1, ChunkWindow: 1, Epochs: 1},
		{Records: 10, RecordBytes: 1, NodeSizes: []int{1}, Batch: 1, ChunkBytes: 1, ChunkWindow: 1, Epochs: 0},
	} {
		if _, err := ShuffleQuality(o, sampler.Global, true); err == nil {
			t.Errorf("accepted %+v", o)
		}
	}
}
