package bench

import (
	"errors"
	"testing"
)

const statusSample = "Name:\tlmdbio\nVmPeak:\t  20000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t    1000 kB\n"

func TestParseStatusKB(t *testing.T) {
	cases := []struct {
		name, text, field string
		want              int64
		wantErr           bool
	}{
		{name: "hwm", text: statusSample, field: "VmHWM", want: 1234 * 1024},
		{name: "rss", text: statusSample, field: "VmRSS", want: 1000 * 1024},
		{name: "prefix is not the field", text: "VmHWMx:\t1 kB\nVmHWM:\t2 kB\n", field: "VmHWM", want: 2048},
		{name: "missing", text: "Name:\tx\n", field: "VmHWM", wantErr: true},
		{name: "no unit", text: "VmHWM:\t12\n", field: "VmHWM", wantErr: true},
		{name: "bad number", text: "VmHWM:\tx kB\n", field: "VmHWM", wantErr: true},
		{name: "too big", text: "VmHWM:\t99999999999999999 kB\n", field: "VmHWM", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatusKB([]byte(c.text), c.field)
			if c.wantErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want ErrFormat", err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

func TestPeakRSS(t *testing.T) {
	_ = ResetPeakRSS() // may be refused; PeakRSS must work either way
	got, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	if got <= 0 {
		t.Fatalf("PeakRSS = %d, want > 0 for a running process", got)
	}
}

func FuzzParseStatusKB(f *testing.F) {
	f.Add([]byte(statusSample))
	f.Add([]byte("VmHWM:\n"))
	f.Add([]byte("VmHWM: -5 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := ParseStatusKB(b, "VmHWM"); err == nil && v < 0 {
			t.Fatalf("negative size accepted: %d", v)
		}
	})
}
