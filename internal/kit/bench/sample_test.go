package bench

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	samples := []RankSample{
		{Rank: 0, Leader: true, Records: 100, Batches: 7, Bytes: 4_000_000, Digest: 1 << 63, FirstBatch: 0.5, Stall: 1.0,
			Compute: 3, Wall: 4, ReadBytes: 8_000_000, ReadCalls: 10, LoaderIO: 4, RSS: 300, Shm: 1000},
		{Rank: 1, Records: 100, Bytes: 4_000_000, Digest: 1<<63 + 5, FirstBatch: 0.3, Stall: 0.5,
			Compute: 3, Wall: 3.5, ReadCalls: 2, RSS: 500, Shm: 1000},
		{Rank: 2, Leader: true, Records: 50, Bytes: 2_000_000, Digest: 7, FirstBatch: 0.1, Stall: 0.0,
			Compute: 1.5, Wall: 2, ReadBytes: 2, RSS: 100, Shm: 64},
	}
	r := Summarize(samples, true)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"samples", float64(r.Samples), 250},
		{"batches of the learner with the most", float64(r.BatchesMax), 7},
		{"bytes", float64(r.Bytes), 10_000_000},
		{"seconds (slowest learner)", r.Seconds, 4},
		{"samples/s", r.SamplesPerS, 62.5},
		{"MB/s", r.MBPerS, 2.5},
		{"first batch min", r.FirstBatchMin, 0.1},
		{"first batch median", r.FirstBatchMedian, 0.3},
		{"first batch max", r.FirstBatchMax, 0.5},
		{"stall max", r.StallS, 1.0},
		{"stall mean", r.StallMean, 0.5},
		{"read bytes", float64(r.ReadBytes), 8_000_002},
		{"read calls", float64(r.ReadCalls), 12},
		{"loader reads", float64(r.LoaderReads), 4},
		{"rss max", float64(r.RSSMaxBytes), 500},
		{"shm, one arena per node", float64(r.ShmBytes), 1064},
		{"au min", r.AUMin, 0.75},
		{"au mean", r.AUMean, (0.75 + 3/3.5 + 0.75) / 3},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := DigestSum(samples); got != 12 { // 2^63 + 2^63 + 5 + 7 wraps modulo 2^64
		t.Errorf("digest = %d, want 12", got)
	}
	if r.Type != TypeResult {
		t.Errorf("type = %q", r.Type)
	}

	if noAU := Summarize(samples, false); noAU.AUMin != 0 || noAU.AUMean != 0 {
		t.Errorf("AU without a workload: %v %v", noAU.AUMin, noAU.AUMean)
	}
	if empty := Summarize(nil, true); empty.Samples != 0 || empty.MBPerS != 0 {
		t.Errorf("Summarize(nil) = %+v", empty)
	}
}

// TestSummarizeWindowFromProgramStart: a learner's window starts at its
// program's start; start-up and first batch count from there too, AU from
// Open; the process start-up before the program is reported, not counted.
func TestSummarizeWindowFromProgramStart(t *testing.T) {
	r := Summarize([]RankSample{
		{ProcessStartup: 0.2, ProgramStartup: 0.3, Startup: 0.1, FirstBatch: 0.2, Wall: 2, Compute: 1, Records: 1, Bytes: 1e6},
		{ProcessStartup: 0.4, ProgramStartup: 0.5, Startup: 0.05, FirstBatch: 0.1, Wall: 1.9, Compute: 1, Records: 1, Bytes: 1e6},
	}, true)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"seconds", r.Seconds, 2.4},
		{"start-up", r.StartupS, 0.55},
		{"process start-up", r.ProcessStartupS, 0.4},
		{"first batch max", r.FirstBatchMax, 0.6},
		{"first batch min", r.FirstBatchMin, 0.5},
		{"MB/s over the window", r.MBPerS, 2 / 2.4},
		{"AU over the loader's time", r.AUMin, 0.5},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
