package h5fmt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmdbio/lmdbio/internal/hdf5/h5pytest"
)

// files are written by h5py in the formats libhdf5 writes v1 B-tree chunk
// indexes in: version 1 object headers (libver earliest, h5py's default)
// and version 2 ones (libver v108), with continuation blocks, a user
// block, edge chunks, no chunks, and a B-tree of several levels.
var files = []struct{ name, script string }{
	{"earliest", `
f.create_dataset('d', data=np.arange(23*5*7, dtype=np.int32).reshape(23, 5, 7), chunks=(4, 2, 3), compression='gzip')`},
	{"v108 header", `
f.close()
f = h5py.File(args[0], 'w', libver=('v108', 'v108'))
f.create_dataset('d', data=np.arange(600, dtype=np.uint8).reshape(60, 10), chunks=(7, 4), shuffle=True, compression='gzip')`},
	{"continuation blocks", `
d = f.create_dataset('d', data=np.arange(300, dtype=np.int16).reshape(30, 10), chunks=(8, 10))
for i in range(40):
    d.attrs['attribute%d' % i] = np.arange(20)`},
	{"user block", `
f.close()
f = h5py.File(args[0], 'w', userblock_size=2048)
f.create_dataset('d', data=np.arange(100, dtype=np.float64), chunks=(9,), compression='gzip')`},
	{"no chunks written", `
f.create_dataset('d', shape=(10, 4), dtype=np.uint8, chunks=(3, 4))`},
	{"some chunks written", `
d = f.create_dataset('d', shape=(10, 4), dtype=np.uint8, chunks=(3, 4))
d[3:6] = 1`},
	{"deep tree", `
f.create_dataset('d', data=np.arange(6000, dtype=np.uint16), chunks=(1,))`},
}

// listScript prints, for dataset d of each file: the user block size and
// object header address, then every written chunk (libhdf5's listing):
// offset, address relative to the base, size, filter mask.
const listScript = `
for path in args:
    f = h5py.File(path, 'r')
    d = f['d']
    print('file', f.userblock_size, h5py.h5o.get_info(d.id).addr)
    for i in range(d.id.get_num_chunks()):
        c = d.id.get_chunk_info(i)
        print(','.join(map(str, c.chunk_offset)), c.byte_offset, c.size, c.filter_mask)
`

type want struct {
	userblock int64
	header    uint64
	chunks    []string
}

func TestWalkChunks(t *testing.T) {
	h5pytest.Require(t)
	dir := t.TempDir()
	var specs []h5pytest.File
	var paths []string
	for i, f := range files {
		p := filepath.Join(dir, strconv.Itoa(i)+".h5")
		specs = append(specs, h5pytest.File{Path: p, Script: f.script})
		paths = append(paths, p)
	}
	h5pytest.WriteAll(t, specs)
	var wants []want
	for _, line := range strings.Split(strings.TrimSpace(h5pytest.Run(t, listScript, paths...)), "\n") {
		f := strings.Fields(line)
		if f[0] == "file" {
			ub, _ := strconv.ParseInt(f[1], 10, 64)
			h, _ := strconv.ParseUint(f[2], 10, 64)
			wants = append(wants, want{userblock: ub, header: h})
			continue
		}
		w := &wants[len(wants)-1]
		off, _ := strconv.ParseInt(f[1], 10, 64)
		w.chunks = append(w.chunks, fmt.Sprintf("%s %d %s %s", f[0], off+w.userblock, f[2], f[3]))
	}
	for i, f := range files {
		t.Run(f.name, func(t *testing.T) {
			got, err := walkFile(paths[i], wants[i].header)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(wants[i].chunks, "\n") {
				t.Errorf("chunks:\n%s\nlibhdf5 lists:\n%s", strings.Join(got, "\n"), strings.Join(wants[i].chunks, "\n"))
			}
		})
	}
}

// walkFile lists the chunks of the dataset whose header is at header.
func walkFile(path string, header uint64) ([]string, error) {
	img, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return walkImage(img, header)
}

func walkImage(img []byte, header uint64) ([]string, error) {
	r := strings.NewReader(string(img))
	at, err := FindSuperblock(r, int64(len(img)))
	if err != nil || at < 0 {
		return nil, fmt.Errorf("superblock at %d: %v", at, err)
	}
	sb, err := ReadSuperblock(r, at, int64(len(img)))
	if err != nil {
		return nil, err
	}
	btree, dims, err := ChunkIndex(r, sb, header)
	if err != nil {
		return nil, err
	}
	var out []string
	err = WalkChunks(r, sb, btree, dims, 1<<20, func(c Chunk) error {
		var off []string
		for _, o := range c.Offset {
			off = append(off, strconv.FormatUint(o, 10))
		}
		out = append(out, fmt.Sprintf("%s %d %d %d", strings.Join(off, ","), c.Pos, c.Size, c.FilterMask))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func TestDamage(t *testing.T) {
	h5pytest.Require(t)
	path := filepath.Join(t.TempDir(), "f.h5")
	h5pytest.Write(t, path, files[6].script)
	header, _ := strconv.ParseUint(strings.Fields(h5pytest.Run(t, listScript, path))[2], 10, 64)
	img, _ := os.ReadFile(path)
	if _, err := walkImage(img, header); err != nil {
		t.Fatal(err)
	}
	// Every chunk B-tree node's signature damaged, one at a time; the file
	// cut short.
	damaged := 0
	for i := 0; i+4 <= len(img); i++ {
		if string(img[i:i+4]) != "TREE" || img[i+4] != 1 { // chunk nodes, not the groups'
			continue
		}
		bad := append([]byte(nil), img...)
		bad[i] = 'X'
		if _, err := walkImage(bad, header); !errors.Is(err, ErrCorrupt) {
			t.Errorf("node at %d damaged: %v", i, err)
		}
		damaged++
	}
	if damaged < 2 {
		t.Errorf("%d B-tree nodes, want a deeper tree", damaged)
	}
	if _, err := walkImage(img[:len(img)/2], header); !errors.Is(err, ErrCorrupt) {
		t.Errorf("half the file: %v", err)
	}
	if _, err := walkImage(img, header+8); !errors.Is(err, ErrCorrupt) {
		t.Errorf("wrong header address: %v", err)
	}
}

func FuzzChunkIndex(f *testing.F) {
	if h5pytest.Available() {
		dir := f.TempDir()
		for i, spec := range files[:3] {
			p := filepath.Join(dir, strconv.Itoa(i)+".h5")
			h5pytest.Write(f, p, spec.script)
			header, _ := strconv.ParseUint(strings.Fields(h5pytest.Run(f, listScript, p))[2], 10, 64)
			img, _ := os.ReadFile(p)
			f.Add(img, header)
		}
	}
	f.Add([]byte(Signature+"\x00\x00\x00\x00\x00\x08\x08"), uint64(0))
	f.Fuzz(func(t *testing.T, img []byte, header uint64) {
		got, err := walkImage(img, header)
		if err != nil && got != nil {
			t.Fatalf("chunks and an error: %v", err)
		}
	})
}
