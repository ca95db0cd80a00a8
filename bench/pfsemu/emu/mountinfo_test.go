package emu

import (
	"reflect"
	"testing"
)

const sampleMountinfo = `22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
36 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=4k
42 27 0:39 / /tmp/pe/mnt rw,nosuid,nodev,relatime - fuse.pfsemu /tmp/pe/src ro,user_id=0,group_id=0,allow_other,max_read=1048576
43 27 0:40 / /tmp/with\040space rw shared:9 master:3 - tmpfs tmpfs rw
`

func TestParseMountinfo(t *testing.T) {
	got, err := ParseMountinfo([]byte(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	want := []MountEntry{
		{"254:1", "/", "ext4"},
		{"0:5", "/dev", "devtmpfs"},
		{"0:39", "/tmp/pe/mnt", "fuse.pfsemu"},
		{"0:40", "/tmp/with space", "tmpfs"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestParseMountinfoErrors(t *testing.T) {
	for _, in := range []string{
		"22 1 254:1 / / rw,relatime shared:1 ext4 /dev/vda1 rw\n", // no separator
		"22 1 254:1 / / rw - \n",                                  // no type
		"short line\n",
		"22 1 2541 / / rw,relatime - ext4 /dev/vda1 rw\n", // no major:minor
	} {
		if _, err := ParseMountinfo([]byte(in)); err == nil {
			t.Errorf("ParseMountinfo(%q): no error", in)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	tests := []struct{ in, want string }{
		{`/a\040b`, "/a b"}, {`/a\011b`, "/a\tb"}, {`/a\134b`, `/a\b`}, {`/a\04`, `/a\04`}, {`/a\9999`, `/a\9999`}, {`/plain`, "/plain"},
	}
	for _, tt := range tests {
		if got := unescapeMount(tt.in); got != tt.want {
			t.Errorf("unescapeMount(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(sampleMountinfo))
	f.Add([]byte("1 2 3:4 / /x\\0 - t s o\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ParseMountinfo(b)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.FSType == "" || m.Dev == "" {
				t.Fatalf("entry %+v from %q has empty fields", m, b)
			}
		}
	})
}
