// Package prep turns image records into training samples: it decodes a
// Caffe Datum (raw pixels, or an encoded JPEG or PNG) or an HDF5 image row,
// applies the augmentations of a pipeline spec (crops, resize, flip,
// normalisation, layout, element type) and writes the result into a slot
// of a batch tensor that the caller owns.
//
// # Overview
//
// Parse reads the spec of the `prep=SPEC` option, e.g.
//
//	decode,random_resized_crop:224,flip,normalize:imagenet,chw,float16
//
// into a Pipeline, which is immutable and shared by every prep thread. Each
// thread owns a Worker (decoder handle and scratch buffers) and calls
// Worker.Datum or Worker.Pixels once per record.
//
// The operations follow torchvision's transforms on PIL images, so that a
// model trained with torchvision sees the same samples:
//
//   - decode: JPEG through libjpeg-turbo's TurboJPEG API (the library Pillow
//     links, so pixels equal Pillow's), PNG through image/png. When the
//     next step shrinks the image at least twofold, the JPEG is decoded at
//     1/2, 1/4 or 1/8 scale in the DCT domain: the largest reduction that
//     still leaves at least as many pixels as the step's output in each
//     direction. That changes pixels a little (the DCT reduction is sharper
//     than Pillow's filter): within a mean of 2.5 levels, 98% of bytes within
//     12, of the full-size result (tested; Pipeline.FullDecode turns it off).
//     Grayscale becomes RGB by replicating the channel, as PIL's
//     convert("RGB"); CMYK and YCCK JPEGs are refused (their conversion
//     to RGB is not standard: Pillow's is naive and others use ICC profiles).
//   - center_crop:S, random_resized_crop:S, resize:S, flip: torchvision's
//     CenterCrop, RandomResizedCrop (scale 0.08-1, ratio 3/4-4/3, ten tries
//     then its centre-crop fallback), Resize (shorter side) and
//     RandomHorizontalFlip (p=0.5). Resizing is Pillow's bilinear filter with
//     its antialiasing support and its fixed-point arithmetic, so a resize of
//     a fully decoded image equals Pillow's exactly.
//   - normalize, chw, float16|float32: ToTensor's division by 255, then
//     Normalize's (x-mean)/std, in float32 arithmetic as torch does it, then
//     rounded to float16 (nearest even) when asked. Without normalize a float
//     output is x/255; the default output is uint8 HWC.
//
// # Invariants
//
//   - Determinism: every random choice for a record comes from a counter-based
//     hash of (seed, epoch, record, step) alone, never from a shared stream,
//     so a record's output is the same whatever thread, rank or node prepares
//     it, and after a resume.
//   - Bad input is an error matching ErrImage (or ErrSpec for the spec), one
//     line naming the problem and not the record: the caller adds the key.
//     Never a panic, never a partly written or black image reported as good:
//     any libjpeg warning (a truncated stream, corrupt entropy-coded data)
//     fails the record, as a crop larger than the image does (torchvision
//     would pad it with black). The slot is not written on error.
//   - PNG: alpha is dropped (not composited), palettes and gray expanded,
//     16-bit samples keep their high byte. Raw Datums keep their stored
//     channel order (Caffe's tools store BGR); HDF5 rows are HWC.
//   - Memory: a Worker's three image buffers grow to the largest image it
//     has met, each at most MaxPixels*3 bytes; the output goes straight into
//     the caller's slot.
//   - A Worker is not safe for concurrent use; a Pipeline is.
//   - cgo is confined to turbojpeg.go; without cgo JPEG decode fails with
//     ErrImage and everything else works.
package prep
