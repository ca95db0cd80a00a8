package loader

import (
	"context"
	"fmt"
	"sync"

	"github.com/lmdbio/lmdbio/pkg/planner"
	"github.com/lmdbio/lmdbio/pkg/reader"
)

// placement says where one record's bytes landed in the arena.
type placement struct{ offset, length int64 }

// spanLayout lays spans out one after another in an arena region, each at an
// aligned position, and returns the positions and the bytes used.
func spanLayout(spans []planner.Span) (at []int64, size int64) {
	at = make([]int64, len(spans))
	for i, s := range spans {
		at[i] = size
		size += roundUp(s.Length, alignment)
	}
	return at, size
}

// readSpans reads every span into buf at base+at[i], up to depth reads in
// flight, and returns where each requested record landed (by record number).
func readSpans(ctx context.Context, rd *reader.SpanReader, buf []byte, base int64, spans []planner.Span,
	at []int64, depth int) (map[int]placement, error) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, depth)
	errs := make([]error, len(spans))
	for i, s := range spans {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = readSpan(rd, buf[base+at[i]:base+at[i]+roundUp(s.Length, alignment)], s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	placed := make(map[int]placement)
	for i, s := range spans {
		for _, p := range s.Records {
			placed[p.Record] = placement{offset: base + at[i] + p.Offset, length: p.Length}
		}
	}
	return placed, nil
}

// readSpan reads one span and checks that every record it holds arrived: a
// data file shorter than its index says is corrupt or was replaced.
func readSpan(rd *reader.SpanReader, dst []byte, s planner.Span) error {
	if !rd.Direct() {
		dst = dst[:s.Length]
	}
	n, err := rd.ReadSpan(dst, s.Offset)
	if err != nil {
		return err
	}
	for _, p := range s.Records {
		if p.Offset+p.Length > int64(n) {
			return fmt.Errorf("%s: record %d ends at byte %d but the file ends at %d: the file changed or is corrupt",
				rd.Path(), p.Record, s.Offset+p.Offset+p.Length, s.Offset+int64(n))
		}
	}
	return nil
}
