package gen

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/lmdbio/lmdbio/internal/datum"
)

const (
	numClasses = 1000
	// firstSynset is the WordNet id of ImageNet's first class; later
	// classes get made-up ids after it.
	firstSynset = 1440764
)

// records produces the key and value of any record. It reuses its buffers,
// so what it returns is valid until the next call; it is not safe for
// concurrent use.
type records struct {
	opt   Options
	seed  [32]byte // ChaCha8 seed: opt.Seed, record number, a domain tag
	src   *rand.ChaCha8
	rng   *rand.Rand // draws from src
	key   []byte
	data  []byte // random payload
	value []byte // Datum encoding of data
	// photos holds JPEGs made ahead by makePhotos, by record number.
	photos map[int][]byte
}

func newRecords(opt Options) *records {
	r := &records{opt: opt}
	binary.LittleEndian.PutUint64(r.seed[0:], uint64(opt.Seed))
	copy(r.seed[16:], "lmdbio gen v1")
	r.src = rand.NewChaCha8(r.seed)
	r.rng = rand.New(r.src)
	return r
}

// record returns record i. Seeding a fresh stream per record makes it
// depend on (Seed, i) alone, whatever the insertion order.
func (r *records) record(i int) (key, value []byte) {
	binary.LittleEndian.PutUint64(r.seed[8:], uint64(i))
	r.src.Seed(r.seed)
	if r.opt.JPEG {
		return r.photo(i)
	}
	size := r.size()
	label := r.rng.IntN(numClasses)
	r.key = appendKey(r.key[:0], i, label)
	if !r.opt.Datum {
		r.fill(size)
		return r.key, r.data
	}
	h, w := shape(size)
	r.fill(3 * h * w)
	d := datum.Datum{Channels: 3, Height: int32(h), Width: int32(w), Data: r.data, Label: int32(label)}
	r.value = d.Marshal(r.value[:0])
	return r.key, r.value
}

// photo returns record i of a JPEG dataset: an encoded Datum, as
// convert_imageset --encoded writes it, of synthetic photograph i.
func (r *records) photo(i int) (key, value []byte) {
	label := r.rng.IntN(numClasses)
	r.key = appendKey(r.key[:0], i, label)
	data, ok := r.photos[i]
	if ok {
		delete(r.photos, i)
	} else {
		data = Photo(r.opt.Seed, i)
	}
	d := datum.Datum{Data: data, Label: int32(label), Encoded: true}
	r.value = d.Marshal(r.value[:0])
	return r.key, r.value
}

// photoBatch is how many photographs makePhotos is asked for at a time:
// enough to keep every core busy, few enough to hold in memory.
const photoBatch = 64

// makePhotos encodes the photographs of records ids on all cores (each is
// slow to make), for photo to take instead of making them one by one.
func (r *records) makePhotos(ids []int) {
	r.photos = make(map[int][]byte, len(ids))
	made := make([][]byte, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				made[k] = Photo(r.opt.Seed, ids[k])
			}
		}()
	}
	for k := range ids {
		next <- k
	}
	close(next)
	wg.Wait()
	for k, id := range ids {
		r.photos[id] = made[k]
	}
}

// size draws a value size from Normal(MeanSize, StdDev), from 1 to
// MaxValueSize.
func (r *records) size() int {
	s := math.Round(float64(r.opt.MeanSize) + r.rng.NormFloat64()*float64(r.opt.StdDev))
	return int(min(max(s, 1), MaxValueSize))
}

// fill sets r.data to n random bytes.
func (r *records) fill(n int) {
	r.data = slices.Grow(r.data[:0], n)[:n]
	r.src.Read(r.data)
}

// shape returns the height and width of a 3-channel image of about size
// bytes, 4:3 landscape like most ImageNet photos.
func shape(size int) (h, w int) {
	pixels := max(1, float64(size)/3)
	h = max(1, int(math.Round(math.Sqrt(pixels*3/4))))
	w = max(1, int(math.Round(pixels/float64(h))))
	return h, w
}

// appendKey appends convert_imageset's key for record i of class label:
// "%08d_" then a synthetic ImageNet path.
func appendKey(b []byte, i, label int) []byte {
	synset := firstSynset + label*1009
	b = appendPadded(b, i, 8)
	b = append(b, "_n"...)
	b = appendPadded(b, synset, 8)
	b = append(b, "/n"...)
	b = appendPadded(b, synset, 8)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ".JPEG"...)
}

// appendPadded appends n in decimal, zero-padded to width digits.
func appendPadded(b []byte, n, width int) []byte {
	var digits [20]byte
	s := strconv.AppendInt(digits[:0], int64(n), 10)
	for range width - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

// image returns the label and the n pixels of image i of an HDF5 dataset:
// random values 64-127, 6 bits of entropy each. Like record, it depends
// on (Seed, i) alone; the slice is reused by the next call.
func (r *records) image(i, n int) (label int, pixels []byte) {
	binary.LittleEndian.PutUint64(r.seed[8:], uint64(i))
	r.src.Seed(r.seed)
	label = r.rng.IntN(numClasses)
	r.fill(n)
	for k, b := range r.data {
		r.data[k] = 64 + b>>2
	}
	return label, r.data
}
