package agent

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/pkg/failure"
)

func frame(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

func TestFrames(t *testing.T) {
	var b []byte
	var err error
	for _, r := range []Request{{Op: OpHello, Version: 1, Local: 3, Pid: 9}, {Op: OpAllreduce, Values: []uint64{1<<64 - 1, 0}}} {
		if b, err = AppendFrame(b, r); err != nil {
			t.Fatal(err)
		}
	}
	in := bytes.NewReader(b)
	for _, want := range []Request{{Op: OpHello, Version: 1, Local: 3, Pid: 9}, {Op: OpAllreduce, Values: []uint64{1<<64 - 1, 0}}} {
		p, err := ReadFrame(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRequest(p)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, %v; want %+v", got, err, want)
		}
	}
	if _, err := ReadFrame(in); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
	for name, c := range map[string]struct {
		in   []byte
		want error
	}{
		"empty frame":    {[]byte{0, 0, 0, 0}, ErrProtocol},
		"huge frame":     {[]byte{0xff, 0xff, 0xff, 0xff}, ErrProtocol},
		"short payload":  {[]byte{5, 0, 0, 0, '{'}, io.ErrUnexpectedEOF},
		"short length":   {[]byte{5, 0}, io.ErrUnexpectedEOF},
		"payload absent": {[]byte{5, 0, 0, 0}, io.ErrUnexpectedEOF},
	} {
		if _, err := ReadFrame(bytes.NewReader(c.in)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

func TestDecodeRequestBad(t *testing.T) {
	for _, s := range []string{
		``, `[]`, `{}`, `{"op":"fly"}`, `{"op":"hello"}`, `{"op":"hello","version":1,"local":-1}`,
		`{"op":"hello","version":1,"path":"x"}`, `{"op":"open"}`, `{"op":"open","path":"x","values":[1]}`,
		`{"op":"open","path":"x","refused":{"kind":"odd","message":"m"}}`, `{"op":"open","path":"x","refused":{"kind":"argument","message":""}}`,
		`{"op":"allreduce","local":2}`, `{"op":"allreduce","values":[-1]}`, `{"op":"allreduce","values":[18446744073709551616]}`,
		`{"op":"allreduce","colour":1}`, `{"op":"allreduce"} {}`, `{"op":"allreduce","values":[1.5]}`,
		`{"op":"open","path":"` + strings.Repeat("p", MaxPath+1) + `"}`,
		`{"op":"closed"}`, `{"op":"closed","session":2,"values":[1]}`, `{"op":"open","path":"x","session":2}`,
	} {
		if r, err := DecodeRequest([]byte(s)); !errors.Is(err, ErrProtocol) {
			t.Errorf("%.60s: %+v, %v; want ErrProtocol", s, r, err)
		}
	}
}

func TestDecodeReply(t *testing.T) {
	good := map[string]string{
		`{"topology":{"rank":3,"size":4,"node":1,"nodes":2,"local":1,"local_size":2,"agent_pid":7,"host":"h"}}`: OpHello,
		`{"socket":"@s","session":3}`: OpOpen,
		`{"values":[1,2]}`:            OpAllreduce,
		`{}`:                          OpAllreduce, // no values
		`{"error":{"kind":"input","message":"p: missing"}}`: OpOpen,
		`{"error":{"kind":"launch","message":"m"}}`:         OpAllreduce,
		`{"error":{"kind":"internal","message":"m"}}`:       OpHello,
	}
	for s, op := range good {
		if _, err := DecodeReply([]byte(s), op); err != nil {
			t.Errorf("%s to %s: %v", s, op, err)
		}
	}
	bad := map[string]string{
		`{"topology":{"rank":3,"size":4,"node":1,"nodes":2,"local":0,"local_size":2}}`: OpHello, // rank is not node*size+local
		`{"topology":{"rank":0,"size":0,"node":0,"nodes":0,"local":0,"local_size":0}}`: OpHello,
		`{"socket":"@s"}`: OpHello,
		`{}`:              OpOpen,
		`{"error":{"kind":"input","message":"m"},"socket":"@s"}`: OpOpen,
		`{"error":{"kind":"input"}}`:                             OpOpen,
		`{"error":{"message":"m"}}`:                              OpOpen, // no kind
		`{"error":{"kind":"","message":"m"}}`:                    OpOpen,
		`{"error":{"kind":"input","message":"m","colour":1}}`:    OpOpen,
		`{"socket":"@s","values":[1]}`:                           OpOpen,
		`{"socket":"@u"}`:                                        OpOpen, // no session
		`{"socket":"@t"}`:                                        "fly",
	}
	for s, op := range bad {
		if r, err := DecodeReply([]byte(s), op); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s to %s: %+v, %v; want ErrProtocol", s, op, r, err)
		}
	}
}

// FuzzDecodeRequest: no bytes make the agent's decoder panic, and what it
// accepts encodes back into a request it accepts alike.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"op":"hello","version":1,"local":2,"pid":5}`, `{"op":"open","path":"/d","options":"batch=8"}`,
		`{"op":"open","path":"/d","refused":{"kind":"argument","message":"m"}}`, `{"op":"allreduce","values":[1,2,3]}`,
		`{"op":"allreduce"}`, `{"op":`, `null`} {
		f.Add(frame(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadFrame(bytes.NewReader(b))
		if err != nil {
			return
		}
		r, err := DecodeRequest(p)
		if err != nil {
			return
		}
		again, err := AppendFrame(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := DecodeRequest(again[4:])
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("%q: re-encoded as %s: %+v, %v", p, again[4:], r2, err)
		}
	})
}

// FuzzDecodeReply: no bytes make a learner's decoder panic.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{`{"socket":"@s"}`, `{"values":[1]}`, `{"error":{"kind":"runtime","message":"m"}}`,
		`{"topology":{"rank":1,"size":2,"node":0,"nodes":1,"local":1,"local_size":2}}`} {
		f.Add([]byte(s), OpOpen)
	}
	f.Fuzz(func(t *testing.T, b []byte, op string) {
		r, err := DecodeReply(b, op)
		if err == nil && r.Error == nil && op == OpHello && r.Topology == nil {
			t.Fatalf("%q: a hello answer without a topology", b)
		}
	})
}

// TestErrorKinds: every Kind crosses the wire by its name and comes back as
// itself, for failure.KindOf on the learner's side.
func TestErrorKinds(t *testing.T) {
	for _, k := range failure.Kinds() {
		b, err := AppendFrame(nil, Reply{Error: newError(k, "m")})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"kind":"`+k.String()+`"`) {
			t.Errorf("%v on the wire: %s", k, b[4:])
		}
		r, err := DecodeReply(b[4:], OpOpen)
		if err != nil || r.Error == nil || r.Error.Kind != k || failure.KindOf(fmt.Errorf("p: %w", r.Error)) != k {
			t.Errorf("%v comes back as %+v, %v", k, r.Error, err)
		}
	}
}
