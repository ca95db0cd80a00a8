package datum

import "errors"

// Datum is one record of a Caffe dataset.
type Datum struct {
	Channels, Height, Width int32
	// Data holds Channels*Height*Width bytes of pixels, channel-major, or
	// when Encoded an image file (JPEG, PNG...).
	Data      []byte
	Label     int32
	FloatData []float32 // used instead of Data by non-image datasets
	Encoded   bool
}

// ErrCorrupt means bytes are not a valid Datum encoding.
var ErrCorrupt = errors.New("datum: corrupt encoding")

// Field numbers from caffe.proto.
const (
	fieldChannels  = 1
	fieldHeight    = 2
	fieldWidth     = 3
	fieldData      = 4
	fieldLabel     = 5
	fieldFloatData = 6
	fieldEncoded   = 7
)
