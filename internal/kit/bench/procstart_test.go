package bench

import (
	"errors"
	"testing"
	"time"
)

const statLine = "30754 (cat) R 30752 30752 22462 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 96110 3133440 412 18446744073709551615 0\n"

func TestParseStartTime(t *testing.T) {
	cases := []struct {
		name    string
		stat    string
		want    int64
		wantErr bool
	}{
		{name: "plain", stat: statLine, want: 96110},
		{name: "command with spaces and parentheses", stat: "7 (a) b (c)) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 1 1\n", want: 42},
		{name: "no command", stat: "7 a S 1", wantErr: true},
		{name: "too short", stat: "7 (a) S 1 1 1", wantErr: true},
		{name: "not a number", stat: "7 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x 1 1", wantErr: true},
		{name: "negative", stat: "7 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 1 1", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStartTime([]byte(c.stat))
			if c.wantErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("got %d, %v; want ErrFormat", got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %d, %v; want %d", got, err, c.want)
			}
		})
	}
}

// TestProcessAge: the test binary started before this test ran, and not
// before the machine booted; the age grows with the clock.
func TestProcessAge(t *testing.T) {
	a, err := ProcessAge()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	b, err := ProcessAge()
	if err != nil {
		t.Fatal(err)
	}
	if a < 0 || b < a+20*time.Millisecond {
		t.Errorf("ages %v then %v after 30 ms", a, b)
	}
}

func FuzzParseStartTime(f *testing.F) {
	f.Add([]byte(statLine))
	f.Add([]byte("1 ()) R"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := ParseStartTime(b); err == nil && v < 0 {
			t.Fatalf("negative start time accepted: %d", v)
		}
	})
}
