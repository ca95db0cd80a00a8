package emu

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// MountEntry is one line of /proc/self/mountinfo, reduced to what pfsemu
// needs.
type MountEntry struct {
	Dev        string // "major:minor" of the mounted file system
	MountPoint string // absolute, with the kernel's octal escapes undone
	FSType     string // e.g. "fuse.pfsemu", "ext4"
}

// ParseMountinfo parses the text of /proc/<pid>/mountinfo (see proc(5)):
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Lines it cannot understand are errors, so that a format change is noticed
// instead of silently missing a mount.
func ParseMountinfo(b []byte) ([]MountEntry, error) {
	var out []MountEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Fields(text)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) || !strings.Contains(f[2], ":") {
			return nil, fmt.Errorf("mountinfo line %d: unexpected format %q", line, text)
		}
		out = append(out, MountEntry{Dev: f[2], MountPoint: unescapeMount(f[4]), FSType: f[sep+1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mountinfo: %w", err)
	}
	return out, nil
}

// unescapeMount undoes the kernel's escaping of space, tab, newline and
// backslash as \ooo octal in mountinfo paths; anything else is kept as is.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')
			b.WriteByte(v)
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// Mounts returns the current process's mount table.
func Mounts() ([]MountEntry, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	return ParseMountinfo(b)
}

// MountAt returns the topmost mount whose mount point is path (absolute and
// free of symlinks), and whether there is one.
func MountAt(path string) (MountEntry, bool, error) {
	ms, err := Mounts()
	if err != nil {
		return MountEntry{}, false, err
	}
	var found MountEntry
	ok := false
	for _, m := range ms { // later lines are mounted on top of earlier ones
		if m.MountPoint == path {
			found, ok = m, true
		}
	}
	return found, ok, nil
}
