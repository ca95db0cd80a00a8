package planner

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomCase draws extents with gaps, overlaps, duplicates and zero-length
// records, a request list with repeats, and options.
func randomCase(rng *rand.Rand) (extentList, []int, Options) {
	n := 1 + rng.IntN(60)
	ext := make(extentList, n)
	var next int64
	for i := range ext {
		switch rng.IntN(6) {
		case 0: // overlap the previous record
			next -= rng.Int64N(min(next, 300) + 1)
		case 1: // zero length
			ext[i] = [2]int64{next, 0}
			continue
		case 2: // a gap
			next += rng.Int64N(5000)
		}
		size := 1 + rng.Int64N(3000)
		ext[i] = [2]int64{next, size}
		next += size
	}
	records := make([]int, rng.IntN(2*n+1))
	for i := range records {
		records[i] = rng.IntN(n)
	}
	opt := Options{
		MaxSpan: []int64{0, 1, 500, 4096, 10000, 1 << 20}[rng.IntN(6)],
		MaxGap:  []int64{-1, 0, 100, 4096, 100000}[rng.IntN(5)],
		Align:   []int64{0, 1, 8, 512, 4096}[rng.IntN(5)],
	}
	return ext, records, opt
}

func TestPlanProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		ext, records, opt := randomCase(rng)
		before := slices.Clone(records)
		spans := Plan(ext, records, opt)
		if !slices.Equal(before, records) {
			t.Fatalf("case %d: Plan changed the caller's records", i)
		}
		if err := Verify(ext, records, opt, spans); err != nil {
			t.Fatalf("case %d: %v\nextents %v\nrecords %v\noptions %+v", i, err, ext, records, opt)
		}
		if st := Summarize(spans); st.Records != len(records) || st.BytesRead != TotalBytes(spans) {
			t.Fatalf("case %d: stats %+v for %d records", i, st, len(records))
		}
	}
}

// TestVerifyCatchesBrokenPlans makes sure the property test can fail: each
// mutation of a valid plan must be reported.
func TestVerifyCatchesBrokenPlans(t *testing.T) {
	ext := extentList{{0, 100}, {100, 100}, {300, 100}, {5000, 10}}
	records := []int{0, 1, 2, 3}
	opt := Options{MaxSpan: 1000, MaxGap: 100}
	fresh := func() []Span {
		spans := Plan(ext, records, opt)
		if err := Verify(ext, records, opt, spans); err != nil {
			t.Fatal(err)
		}
		return spans
	}
	tests := []struct {
		name   string
		opt    Options
		mutate func([]Span) []Span
	}{
		{"drop a span", opt, func(s []Span) []Span { return s[1:] }},
		{"duplicate a placement", opt, func(s []Span) []Span {
			s[0].Records = append(s[0].Records, s[0].Records[0])
			return s
		}},
		{"wrong offset in span", opt, func(s []Span) []Span { s[0].Records[1].Offset++; return s }},
		{"record past span end", opt, func(s []Span) []Span { s[0].Length -= 50; return s }},
		{"overlapping spans", opt, func(s []Span) []Span {
			s[1].Offset, s[1].Length = 0, s[1].End()
			return s
		}},
		{"unsorted spans", opt, func(s []Span) []Span { s[0], s[1] = s[1], s[0]; return s }},
		{"gap larger than MaxGap", Options{MaxSpan: 1000, MaxGap: 50}, func(s []Span) []Span { return s }},
		{"splittable span over MaxSpan", Options{MaxSpan: 300, MaxGap: 100}, func(s []Span) []Span { return s }},
		{"unaligned", Options{MaxSpan: 1000, MaxGap: 100, Align: 64}, func(s []Span) []Span { return s }},
		{"empty span", opt, func(s []Span) []Span { return append(s, Span{Offset: 10000}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Verify(ext, records, tt.opt, tt.mutate(fresh())); err == nil {
				t.Fatal("Verify accepted a broken plan")
			}
		})
	}
}

func TestPlanPanicsOnBadAlign(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for Align 3")
		}
	}()
	Plan(extentList{{0, 1}}, []int{0}, Options{Align: 3})
}

// FuzzPlan checks the invariants on inputs built from fuzz bytes: every
// three bytes of ext give a record (16-bit offset, 8-bit length), every byte
// of req a requested record.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 10, 10, 0, 30, 5}, []byte{0, 1, 2, 1}, int64(20), int64(0), uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 0, 255}, []byte{2, 2, 0}, int64(100), int64(-1), uint8(3))
	f.Add([]byte{16, 0, 200, 16, 100, 200, 255, 255, 255}, []byte{0, 1, 2}, int64(0), int64(4096), uint8(12))
	f.Fuzz(func(t *testing.T, raw, req []byte, maxSpan, maxGap int64, alignShift uint8) {
		var ext extentList
		for i := 0; i+3 <= len(raw); i += 3 {
			ext = append(ext, [2]int64{int64(raw[i])<<8 | int64(raw[i+1]), int64(raw[i+2])})
		}
		if len(ext) == 0 {
			return
		}
		records := make([]int, len(req))
		for i, b := range req {
			records[i] = int(b) % len(ext)
		}
		opt := Options{MaxSpan: maxSpan % (1 << 20), MaxGap: maxGap % (1 << 20)}
		if alignShift%16 < 13 {
			opt.Align = 1 << (alignShift % 16)
		}
		spans := Plan(ext, records, opt)
		if err := Verify(ext, records, opt, spans); err != nil {
			t.Fatalf("%v\nextents %v\nrecords %v\noptions %+v", err, ext, records, opt)
		}
	})
}
