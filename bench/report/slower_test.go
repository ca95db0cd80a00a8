package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSlower checks that every comparison lmdbio lost is listed, and only
// those: not a win, not a ratio that is unknown, not its own binding.
func TestSlower(t *testing.T) {
	g := Group{Storage: "hosts", Consumer: "touch"}
	pairs := []PairRow{
		{Group: g, Cache: "cold", Ranks: 4, Ratio: 1.2},
		{Group: g, Cache: "warm", Ranks: 4, Ratio: 0.85},
		{Group: g, Cache: "cold", Ranks: 8}, // no lmdb result: ratio unknown
	}
	peers := []PeerTable{{Group: g, Rows: []PeerRow{
		{Cache: "cold", Peer: "caffe", Ranks: 4, Ratio: 0.95},
		{Cache: "cold", Peer: "caffe", Ranks: 32, Ratio: 1.75},
		{Cache: "cold", Peer: ownPeer, Ranks: 4, Ratio: 0.9},
	}}}
	got := buildSlower(pairs, peers)
	if len(got) != 2 || got[0].Than != "`lmdb`" || got[0].Cache != "warm" || got[1].Than != "caffe" || got[1].Ranks != 4 {
		t.Fatalf("slower rows %+v: want the warm lmdb pair and caffe at 4 ranks", got)
	}
	var b bytes.Buffer
	writeSlower(&b, got, true)
	if out := b.String(); !strings.Contains(out, "| caffe ") || !strings.Contains(out, "0.95×") {
		t.Errorf("the table misses caffe's 0.95×:\n%s", out)
	}
	b.Reset()
	writeSlower(&b, nil, true)
	if !strings.Contains(b.String(), "None in these runs.") {
		t.Errorf("no row, and no word of it:\n%s", b.String())
	}
	b.Reset()
	writeSlower(&b, nil, false)
	if b.Len() != 0 {
		t.Errorf("a section without comparisons:\n%s", b.String())
	}
}
