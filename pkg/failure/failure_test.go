package failure

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

var errSentinel = New(Input, "thing: corrupt")

type ownKind struct{}

func (ownKind) Error() string     { return "from elsewhere" }
func (ownKind) FailureKind() Kind { return Launch }

func TestKindOf(t *testing.T) {
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "missing"))
	for _, c := range []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, Runtime},
		{"unmarked", errors.New("disk on fire"), Runtime},
		{"sentinel", errSentinel, Input},
		{"wrapped sentinel", fmt.Errorf("p: %w: page 3", errSentinel), Input},
		{"marked", Mark(errors.New("x"), Argument), Argument},
		{"outermost mark wins", Mark(fmt.Errorf("y: %w", Mark(errSentinel, Runtime)), Internal), Internal},
		{"inner mark under a wrap", fmt.Errorf("y: %w", Mark(errSentinel, Argument)), Argument},
		{"own kind", fmt.Errorf("z: %w", ownKind{}), Launch},
		{"joined", errors.Join(errors.New("a"), errSentinel), Input},
		{"missing path", statErr, Input},
		{"permission", fmt.Errorf("open: %w", fs.ErrPermission), Input},
		{"loop", &fs.PathError{Op: "open", Path: "p", Err: syscall.ELOOP}, Input},
		{"not a directory", syscall.ENOTDIR, Input},
		{"name too long", syscall.ENAMETOOLONG, Input},
		{"a mark beats a path error", Mark(statErr, Runtime), Runtime},
		{"other errno", syscall.EIO, Runtime},
	} {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("%s: KindOf(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// TestMarkKeepsTheError: a mark changes neither the message nor what
// errors.Is and errors.As find.
func TestMarkKeepsTheError(t *testing.T) {
	if Mark(nil, Input) != nil {
		t.Error("Mark(nil) is not nil")
	}
	base := &fs.PathError{Op: "open", Path: "p", Err: syscall.ENOENT}
	err := Mark(fmt.Errorf("lmdbio: %w", base), Argument)
	if err.Error() != "lmdbio: open p: no such file or directory" {
		t.Errorf("message %q", err)
	}
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe != base {
		t.Errorf("errors.Is/As lost the wrapped error: %v", err)
	}
	if errSentinel.Error() != "thing: corrupt" || !errors.Is(fmt.Errorf("%w", errSentinel), errSentinel) {
		t.Errorf("sentinel %q", errSentinel)
	}
	if errors.Is(New(Input, "thing: corrupt"), errSentinel) {
		t.Error("two sentinels with one text are one error")
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		b, err := k.MarshalText()
		if err != nil || string(b) != k.String() || seen[string(b)] {
			t.Errorf("%d: %q %v (names must be unique)", k, b, err)
		}
		seen[string(b)] = true
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%q reads back as %v, %v", b, back, err)
		}
	}
	if len(seen) != len(names) {
		t.Errorf("Kinds lists %d of %d kinds", len(seen), len(names))
	}
	var zero Kind
	if zero != Runtime {
		t.Errorf("zero Kind is %v, want runtime", zero)
	}
	bad := Kind(len(names))
	if _, err := bad.MarshalText(); err == nil || bad.Valid() {
		t.Errorf("Kind %d marshals", bad)
	}
	var k Kind
	for _, s := range []string{"", "Input", "bad input", "5"} {
		if err := k.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("%q reads as %v", s, k)
		}
	}
}

func TestKindJSON(t *testing.T) {
	type wire struct {
		Kind Kind `json:"kind"`
	}
	b, err := json.Marshal(wire{Input})
	if err != nil || string(b) != `{"kind":"input"}` {
		t.Fatalf("%s %v", b, err)
	}
	var w wire
	if err := json.Unmarshal([]byte(`{"kind":"launch"}`), &w); err != nil || w.Kind != Launch {
		t.Errorf("%v %v", w, err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"fatal"}`), &w); err == nil {
		t.Error("an unknown kind reads")
	}
}
