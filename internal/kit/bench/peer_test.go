package bench

import (
	"errors"
	"reflect"
	"testing"
)

func TestParsePeerLine(t *testing.T) {
	cases := []struct {
		name    string
		out     string
		want    PeerLine
		wantErr bool
	}{
		{
			name: "one line",
			out: `{"type":"peer","consumer":"sha256","records":3000,"bytes":330000000,"digest":"00000000000000ff","seconds":2.5,` +
				`"first_batch_s":0.2,"startup_s":1.5,"process_startup_s":0.9,"loop_s":1.0,"index_s":0.5,"total_s":4}` + "\n",
			want: PeerLine{Consumer: "sha256", Records: 3000, Bytes: 330000000, Digest: 255, Seconds: 2.5, FirstBatch: 0.2,
				Startup: 1.5, ProcessStartup: 0.9, Loop: 1.0, Index: 0.5, Total: 4},
		},
		{
			name: "chatter before, last object wins",
			out: "loading...\n{\"consumer\":\"sha256\",\"records\":1,\"bytes\":1,\"digest\":\"1\",\"seconds\":1}\n" +
				"{\"consumer\":\"sha256\",\"records\":2,\"bytes\":3,\"digest\":\"ffffffffffffffff\",\"seconds\":4}\n\n",
			want: PeerLine{Consumer: "sha256", Records: 2, Bytes: 3, Digest: 1<<64 - 1, Seconds: 4},
		},
		{
			name: "touch carries no digest",
			out:  `{"consumer":"touch","records":2,"bytes":3,"digest":"","seconds":4}`,
			want: PeerLine{Consumer: "touch", Records: 2, Bytes: 3, Seconds: 4},
		},
		{name: "nothing", out: "Traceback...\n", wantErr: true},
		{name: "no consumer", out: `{"records":1,"bytes":1,"digest":"1","seconds":1}`, wantErr: true},
		{name: "unknown consumer", out: `{"consumer":"md5","records":1,"bytes":1,"digest":"1","seconds":1}`, wantErr: true},
		{name: "sha256 without digest", out: `{"consumer":"sha256","records":1,"bytes":1,"seconds":1}`, wantErr: true},
		{name: "digest not hex", out: `{"consumer":"sha256","records":1,"bytes":1,"digest":"xyz","seconds":1}`, wantErr: true},
		{name: "digest too long", out: `{"consumer":"sha256","records":1,"bytes":1,"digest":"00000000000000000","seconds":1}`, wantErr: true},
		{name: "negative", out: `{"consumer":"touch","records":-1,"bytes":1,"seconds":1}`, wantErr: true},
		{name: "negative start-up", out: `{"consumer":"touch","records":1,"bytes":1,"seconds":1,"startup_s":-1}`, wantErr: true},
		{name: "broken json", out: `{"records":1,`, wantErr: true},
		{
			name: "epochs",
			out: `{"consumer":"touch","records":4,"bytes":8,"seconds":3,"epochs":[` +
				`{"epoch":0,"records":2,"bytes":4,"seconds":2,"end_s":2.5,"stall_s":1,"storage_bytes":4},` +
				`{"epoch":1,"records":2,"bytes":4,"seconds":0.5,"end_s":3,"stall_s":0.1,"storage_bytes":0}]}`,
			want: PeerLine{Consumer: "touch", Records: 4, Bytes: 8, Seconds: 3, Epochs: []PeerEpoch{
				{Epoch: 0, Records: 2, Bytes: 4, Seconds: 2, End: 2.5, Stall: 1, StorageBytes: 4},
				{Epoch: 1, Records: 2, Bytes: 4, Seconds: 0.5, End: 3, Stall: 0.1}}},
		},
		{name: "negative epoch time", out: `{"consumer":"touch","records":1,"bytes":1,"seconds":1,"epochs":[{"epoch":0,"seconds":-1}]}`, wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePeerLine([]byte(c.out))
			if c.wantErr {
				if err == nil {
					t.Fatalf("accepted: %+v", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	if _, err := ParsePeerLine([]byte("no json")); !errors.Is(err, ErrFormat) {
		t.Errorf("err = %v, want ErrFormat", err)
	}
}

func TestSumPeers(t *testing.T) {
	got := SumPeers([]PeerLine{
		{Consumer: "sha256", Records: 10, Bytes: 100, Digest: 1<<64 - 1, Seconds: 2, FirstBatch: 0.5, Startup: 1, ProcessStartup: 0.3, Loop: 1, Total: 5},
		{Consumer: "sha256", Records: 5, Bytes: 50, Digest: 3, Seconds: 3, FirstBatch: 0.2, Startup: 2, ProcessStartup: 0.2, Loop: 1.5, Index: 1, Total: 4},
	})
	want := PeerLine{Consumer: "sha256", Records: 15, Bytes: 150, Digest: 2, Seconds: 3, FirstBatch: 0.5, Startup: 2,
		ProcessStartup: 0.3, Loop: 1.5, Index: 1, Total: 5}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SumPeers = %+v, want %+v", got, want)
	}
	if got.EpochCount() != 1 {
		t.Errorf("EpochCount without epochs = %d, want 1", got.EpochCount())
	}

	// Shares of a multi-process peer: counts add per epoch, times are the
	// slowest process's.
	got = SumPeers([]PeerLine{
		{Consumer: "touch", Epochs: []PeerEpoch{{Epoch: 0, Records: 1, Bytes: 2, Seconds: 1, End: 2, Stall: 0.5, StorageBytes: 10},
			{Epoch: 1, Records: 1, Bytes: 2, Seconds: 1, End: 3}}},
		{Consumer: "touch", Epochs: []PeerEpoch{{Epoch: 0, Records: 3, Bytes: 4, Seconds: 2, End: 2.5, Stall: 0.1, StorageBytes: 5},
			{Epoch: 1, Records: 3, Bytes: 4, Seconds: 0.5, End: 3.5, StorageBytes: 1}}},
	})
	wantEpochs := []PeerEpoch{{Epoch: 0, Records: 4, Bytes: 6, Seconds: 2, End: 2.5, Stall: 0.5, StorageBytes: 15},
		{Epoch: 1, Records: 4, Bytes: 6, Seconds: 1, End: 3.5, StorageBytes: 1}}
	if !reflect.DeepEqual(got.Epochs, wantEpochs) || got.EpochCount() != 2 {
		t.Errorf("SumPeers epochs = %+v, want %+v", got.Epochs, wantEpochs)
	}
}

func FuzzParsePeerLine(f *testing.F) {
	f.Add([]byte(`{"consumer":"sha256","records":1,"bytes":2,"digest":"ab","seconds":0.5}`))
	f.Add([]byte(`{"consumer":"touch","records":1,"bytes":2,"seconds":0.5,"startup_s":0.1}`))
	f.Add([]byte("x\n{\n"))
	f.Add([]byte(`{"records":1e30,"bytes":2,"digest":"ab","seconds":0.5}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParsePeerLine(b)
		if err != nil {
			return
		}
		if l.Records < 0 || l.Bytes < 0 || l.Seconds < 0 || l.Startup < 0 {
			t.Fatalf("negative values accepted: %+v", l)
		}
		if _, err := ParseConsumer(l.Consumer); err != nil {
			t.Fatalf("unknown consumer accepted: %+v", l)
		}
	})
}

// TestFromReady: every time that counts from the process start moves by the
// start-up, which stays reported; the loop's own times and the epochs'
// lengths do not move, and the line it came from is left as it was.
func TestFromReady(t *testing.T) {
	l := PeerLine{Seconds: 10, FirstBatch: 3, Startup: 2.5, ProcessStartup: 1.5, Loop: 7.5, Index: 0.5, Total: 10.2,
		Epochs: []PeerEpoch{{Epoch: 0, Seconds: 4, End: 6.5}, {Epoch: 1, Seconds: 3.5, End: 10}}}
	got := l.FromReady()
	want := PeerLine{Seconds: 8.5, FirstBatch: 1.5, Startup: 1, ProcessStartup: 1.5, Loop: 7.5, Index: 0.5, Total: 8.7,
		Epochs: []PeerEpoch{{Epoch: 0, Seconds: 4, End: 5}, {Epoch: 1, Seconds: 3.5, End: 8.5}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromReady:\n got %+v\nwant %+v", got, want)
	}
	if l.Epochs[0].End != 6.5 {
		t.Errorf("FromReady changed the line it was called on: %+v", l.Epochs)
	}
}
