package bench

import (
	"errors"
	"testing"
)

func TestAgreement(t *testing.T) {
	var d uint64 = 0xfedcba9876543210
	cases := []struct {
		name       string
		deliveries []Delivery
		bad        int // index of the first delivery that must fail; -1 for none
	}{
		{
			name: "all agree",
			deliveries: []Delivery{
				{Name: "lmdb", Epochs: 1, Records: 3000, Bytes: 330e6, Digest: d, HasDigest: true},
				{Name: "default", Epochs: 1, Records: 3000, Bytes: 330e6, Digest: d, HasDigest: true},
				{Name: "caffe", Epochs: 1, Records: 3000, Bytes: 330e6, Digest: d, HasDigest: true},
			},
			bad: -1,
		},
		{
			name: "epochs scale counts and digest, modulo 2^64",
			deliveries: []Delivery{
				{Name: "a", Epochs: 1, Records: 10, Bytes: 100, Digest: d, HasDigest: true},
				{Name: "b", Epochs: 3, Records: 30, Bytes: 300, Digest: d * 3, HasDigest: true},
			},
			bad: -1,
		},
		{
			name: "touch results carry no digest; peers still agree among themselves",
			deliveries: []Delivery{
				{Name: "default", Epochs: 1, Records: 10, Bytes: 100},
				{Name: "torch", Epochs: 1, Records: 10, Bytes: 100, Digest: d, HasDigest: true},
				{Name: "caffe", Epochs: 1, Records: 10, Bytes: 100, Digest: d + 1, HasDigest: true},
			},
			bad: 2,
		},
		{
			name: "a record missing",
			deliveries: []Delivery{
				{Name: "a", Epochs: 1, Records: 10, Bytes: 100},
				{Name: "b", Epochs: 1, Records: 9, Bytes: 100},
			},
			bad: 1,
		},
		{
			name: "wrong bytes",
			deliveries: []Delivery{
				{Name: "a", Epochs: 2, Records: 20, Bytes: 200},
				{Name: "b", Epochs: 1, Records: 10, Bytes: 101},
			},
			bad: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a Agreement
			for i, dl := range c.deliveries {
				err := a.Check(dl)
				switch {
				case i == c.bad && !errors.Is(err, ErrMismatch):
					t.Fatalf("delivery %d (%s): err = %v, want ErrMismatch", i, dl.Name, err)
				case i != c.bad && err != nil:
					t.Fatalf("delivery %d (%s): %v", i, dl.Name, err)
				}
			}
		})
	}
}
