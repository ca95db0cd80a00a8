package bench

import (
	"errors"
	"testing"
)

const procIOSample = `rchar: 2012
wchar: 0
syscr: 7
syscw: 0
read_bytes: 4096
write_bytes: 0
cancelled_write_bytes: 0
`

func TestParseProcIO(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    IOCounters
		wantErr bool
	}{
		{name: "kernel text", text: procIOSample, want: IOCounters{ReadBytes: 4096, ReadCalls: 7, RChar: 2012}},
		{name: "order and spaces", text: "syscr:   3\nread_bytes:\t12\n", want: IOCounters{ReadBytes: 12, ReadCalls: 3}},
		{name: "unknown lines", text: "new_field: x\nread_bytes: 1\nsyscr: 2\nnot a field\n", want: IOCounters{ReadBytes: 1, ReadCalls: 2}},
		{name: "huge", text: "read_bytes: 9223372036854775807\nsyscr: 0\n", want: IOCounters{ReadBytes: 1<<63 - 1}},
		{name: "no syscr", text: "read_bytes: 1\n", wantErr: true},
		{name: "no read_bytes", text: "syscr: 1\n", wantErr: true},
		{name: "empty", text: "", wantErr: true},
		{name: "not a number", text: "read_bytes: lots\nsyscr: 1\n", wantErr: true},
		{name: "negative", text: "read_bytes: -1\nsyscr: 1\n", wantErr: true},
		{name: "overflow", text: "read_bytes: 9223372036854775808\nsyscr: 1\n", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseProcIO([]byte(c.text))
			if c.wantErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want ErrFormat", err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestIOCountersSub(t *testing.T) {
	a := IOCounters{ReadBytes: 100, ReadCalls: 10, RChar: 1000}
	b := IOCounters{ReadBytes: 40, ReadCalls: 3, RChar: 1}
	if got, want := a.Sub(b), (IOCounters{ReadBytes: 60, ReadCalls: 7, RChar: 999}); got != want {
		t.Fatalf("Sub = %+v, want %+v", got, want)
	}
}

func TestSelfIO(t *testing.T) {
	before, err := SelfIO()
	if err != nil {
		t.Skipf("no I/O accounting here: %v", err)
	}
	if _, err := ParseProcIO([]byte(procIOSample)); err != nil { // something that reads
		t.Fatal(err)
	}
	after, err := SelfIO()
	if err != nil {
		t.Fatal(err)
	}
	// Reading /proc/self/io is itself a read system call.
	if d := after.Sub(before); d.ReadCalls < 1 {
		t.Fatalf("syscr did not grow across a read: %+v", d)
	}
}

func FuzzParseProcIO(f *testing.F) {
	f.Add([]byte(procIOSample))
	f.Add([]byte("read_bytes: 1\nsyscr: 2\n"))
	f.Add([]byte("read_bytes:\nsyscr:"))
	f.Add([]byte{0xff, ':', '\n'})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseProcIO(b)
		if err == nil && (c.ReadBytes < 0 || c.ReadCalls < 0 || c.RChar < 0) {
			t.Fatalf("negative counters accepted: %+v", c)
		}
	})
}
