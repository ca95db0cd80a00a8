package bench

import (
	"errors"
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
			if err != nil || got != c.want {
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
	if got != want {
		t.Fatalf("SumPeers = %+v, want %+v", got, want)
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
