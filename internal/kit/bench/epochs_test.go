package bench

import (
	"math"
	"testing"
)

func TestSummarizeEpochs(t *testing.T) {
	// Two learners on two nodes, two epochs; rank 0 starts later (program
	// start-up 0.5 s) and is the last to finish both epochs.
	samples := []RankSample{
		{Rank: 0, Leader: true, ProcessStartup: 0.1, ProgramStartup: 0.5, Startup: 0.5, Epochs: []EpochSample{
			{Epoch: 0, Records: 10, Bytes: 1_000_000, End: 2.5, Stall: 1.0, StorageBytes: 1_500_000, ExchangeBytes: 300, CacheHits: 0,
				DecodedBytes: 4_000_000, DecodeSeconds: 2},
			{Epoch: 1, Records: 10, Bytes: 1_000_000, End: 3.0, Stall: 0.1, ExchangeBytes: 200, CacheHits: 10},
		}},
		{Rank: 1, Leader: true, ProcessStartup: 0.3, ProgramStartup: 0.2, Startup: 0.6, Epochs: []EpochSample{
			{Epoch: 0, Records: 10, Bytes: 1_000_000, End: 2.0, Stall: 0.5, StorageBytes: 500_000, ExchangeBytes: 100,
				DecodedBytes: 2_000_000, DecodeSeconds: 1},
			{Epoch: 1, Records: 10, Bytes: 1_000_000, End: 2.6, Stall: 0.3, ExchangeBytes: 100, CacheHits: 8},
		}},
	}
	got := SummarizeEpochs(samples, 2_000_000, true)
	if len(got) != 2 {
		t.Fatalf("%d epochs, want 2", len(got))
	}
	e0, e1 := got[0], got[1]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"epoch 0 end (slowest, from program start)", e0.EndS, 3.0},
		{"epoch 0 seconds (from the last learner ready)", e0.Seconds, 2.0},
		{"epoch 1 seconds", e1.Seconds, 0.5},
		{"epoch 0 records", float64(e0.Records), 20},
		{"epoch 0 MB/s", e0.MBPerS, 1},
		{"epoch 0 storage", float64(e0.StorageBytes), 2_000_000},
		{"epoch 0 read amplification", e0.ReadAmplification, 1},
		{"epoch 1 read amplification", e1.ReadAmplification, 0},
		{"epoch 0 exchange", float64(e0.ExchangeBytes), 400},
		{"epoch 1 cache hit rate", e1.CacheHitRate, 0.9},
		{"epoch 0 stall max", e0.StallS, 1.0},
		{"epoch 1 stall mean", e1.StallMean, 0.2},
		{"epoch 0 decode MB/s per decoder-second", e0.DecodeMBPerS, 2},
		{"epoch 1 decode MB/s, nothing decoded", e1.DecodeMBPerS, 0},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// The start-up (the last learner ready at 1.0 s) and the epochs'
	// seconds add up to the window.
	if window := 1.0 + e0.Seconds + e1.Seconds; math.Abs(window-e1.EndS) > 1e-9 {
		t.Errorf("start-up + epochs = %v, want the window %v", window, e1.EndS)
	}
	if r := Summarize(samples, false); r.StorageBytes != 2_000_000 || r.ExchangeBytes != 700 || r.CacheHits != 18 {
		t.Errorf("result totals: storage %d, exchange %d, cache hits %d", r.StorageBytes, r.ExchangeBytes, r.CacheHits)
	}
	if e0.StorageCountedBy != "loader" {
		t.Errorf("storage counted by %q", e0.StorageCountedBy)
	}
	// A loader without node readers: the kernel's count of every rank.
	samples[0].Epochs[0].ReadBytes, samples[1].Epochs[0].ReadBytes = 3_000_000, 1_000_000
	if k := SummarizeEpochs(samples, 2_000_000, false)[0]; k.StorageBytes != 4_000_000 || k.ReadAmplification != 2 ||
		k.StorageCountedBy != "kernel" {
		t.Errorf("kernel-counted epoch: %+v", k)
	}
	if SummarizeEpochs(nil, 1, true) != nil {
		t.Error("SummarizeEpochs(nil) is not nil")
	}
}

func TestPeerEpochFigures(t *testing.T) {
	p := PeerLine{Epochs: []PeerEpoch{{Epoch: 0, Records: 4, Bytes: 2_000_000, Seconds: 2, End: 3, Stall: 0.5, StorageBytes: 3_000_000}}}
	got := PeerEpochFigures(p, 2_000_000)
	if len(got) != 1 || got[0].MBPerS != 1 || got[0].ReadAmplification != 1.5 || got[0].StallS != 0.5 || got[0].EndS != 3 ||
		got[0].CacheHitRate != 0 || got[0].ExchangeBytes != 0 {
		t.Errorf("PeerEpochFigures = %+v", got)
	}
}
