package loader

import (
	"errors"

	"github.com/lmdbio/lmdbio/internal/datum"
	"github.com/lmdbio/lmdbio/internal/prep"
)

// A pipeline without a fixed output size (prep=decode, or decode,resize:S)
// cannot fill one tensor per batch: each record becomes a decoded Caffe
// Datum in the batch's Values instead (3 channels, uint8 pixels stored
// channel-major in BGR order, encoded false, the record's label), as
// Caffe's convert_imageset stores raw images. Caffe's DataTransformer then
// takes its raw path and skips its single-threaded decode; every other
// reader of Datums works unchanged.

// datumScratch is one prep thread's buffers: the pipeline's output and the
// channel-major copy, each as large as the largest image it met.
type datumScratch struct {
	out, planar []byte
}

// prepDatum preps job j into a decoded Datum in its slot's buffer.
func (s *prepStage) prepDatum(w *prep.Worker, sc *datumScratch, j prepJob) error {
	var r prep.Result
	var err error
	for range 2 { // the second try has the room the first one asked for
		r, err = w.Datum(j.value, j.sample, sc.out)
		var small *prep.SlotError
		if !errors.As(err, &small) {
			break
		}
		sc.out = make([]byte, small.Need)
	}
	if err != nil {
		return err
	}
	sc.planar = toPlanarBGR(sc.planar, sc.out[:r.Bytes], r.Width*r.Height, s.pipe.CHW())
	d := datum.Datum{Channels: 3, Height: int32(r.Height), Width: int32(r.Width), Data: sc.planar, Label: r.Label}
	j.b.vals[j.i] = d.Marshal(j.b.vals[j.i][:0])
	j.b.classes[j.i] = int64(r.Label)
	return nil
}

// toPlanarBGR writes the RGB uint8 image pix (plane pixels, channel-major
// when chw, else interleaved) into dst as three planes B, G, R.
func toPlanarBGR(dst, pix []byte, plane int, chw bool) []byte {
	if cap(dst) < 3*plane {
		dst = make([]byte, 3*plane)
	}
	dst = dst[:3*plane]
	b, g, r := dst[:plane], dst[plane:2*plane], dst[2*plane:]
	if chw {
		copy(r, pix[:plane])
		copy(g, pix[plane:2*plane])
		copy(b, pix[2*plane:3*plane])
		return dst
	}
	for i := range plane {
		r[i], g[i], b[i] = pix[3*i], pix[3*i+1], pix[3*i+2]
	}
	return dst
}
