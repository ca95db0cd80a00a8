package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// peerScript makes a line with the peers' own code (bench/peers/_common.py's
// result_line, which every peer prints its result with): two records, one
// logged epoch, the torch peers' index_s.
const peerScript = `
import _common as c
t = c.Tally(consumer="sha256")
t.add(b"k", b"value")
clock = c.Clock(ready=c.PROCESS_START + 0.1, loop_start=c.PROCESS_START + 0.2)
log = c.EpochLog(t, clock)
for b in log.batches(0, [[1], [2]]):
    t.add(b"k2", b"v2")
print(c.result_line("caffe", t, clock.times(), extra={"index_s": 0.01}, config={"workers": 0}, epochs=log.entries))
`

// TestPeerLineDecodes: a line a Python peer prints decodes into PeerReport
// with no field the schema does not declare, and carries every field the
// schema declares (and every field of PeerEpoch in its epochs).
func TestPeerLineDecodes(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no", python)
	}
	cmd := exec.Command(python, "-c", peerScript)
	cmd.Dir = filepath.Join("..", "..", "..", "bench", "peers")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the peer's result_line: %v", err)
	}
	line := bytes.TrimSpace(out)
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var r PeerReport
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("%s\ndoes not decode into PeerReport: %v", line, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		t.Fatal(err)
	}
	checkCarries(t, "peer line", fields, reflect.TypeOf(r))
	if len(r.Epochs) != 1 {
		t.Fatalf("epochs %+v, want one", r.Epochs)
	}
	var epochs []map[string]json.RawMessage
	if err := json.Unmarshal(fields["epochs"], &epochs); err != nil {
		t.Fatal(err)
	}
	checkCarries(t, "peer epoch", epochs[0], reflect.TypeOf(PeerEpoch{}))
	if *r.Consumer != "sha256" || *r.Records != 3 || *r.Bytes != 9 || r.Peer != "caffe" || r.Type != TypePeer || len(r.Digest) != 16 {
		t.Errorf("decoded %+v from %s", r, line)
	}
}

// checkCarries fails for every JSON field of typ missing from fields.
func checkCarries(t *testing.T, what string, fields map[string]json.RawMessage, typ reflect.Type) {
	t.Helper()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if _, ok := fields[name]; !ok {
			t.Errorf("%s without %q, which the schema declares", what, name)
		}
	}
}
