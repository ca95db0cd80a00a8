package datum

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The protobuf module's reflective encoder, driven by a Datum descriptor
// built here from caffe.proto's declaration, is an encoder independent of
// this package; these tests hold the two against each other.

// datumDescriptor describes Caffe's Datum; packed selects
// [packed = true] on float_data, which Caffe does not use but writers may.
func datumDescriptor(t *testing.T, packed bool) protoreflect.MessageDescriptor {
	t.Helper()
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{
			Name:   proto.String(name),
			Number: proto.Int32(num),
			Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type:   typ.Enum(),
		}
	}
	floats := field("float_data", 6, descriptorpb.FieldDescriptorProto_TYPE_FLOAT)
	floats.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	floats.Options = &descriptorpb.FieldOptions{Packed: proto.Bool(packed)}
	file := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("caffe_datum.proto"),
		Package: proto.String("caffe"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Datum"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("channels", 1, descriptorpb.FieldDescriptorProto_TYPE_INT32),
				field("height", 2, descriptorpb.FieldDescriptorProto_TYPE_INT32),
				field("width", 3, descriptorpb.FieldDescriptorProto_TYPE_INT32),
				field("data", 4, descriptorpb.FieldDescriptorProto_TYPE_BYTES),
				field("label", 5, descriptorpb.FieldDescriptorProto_TYPE_INT32),
				floats,
				field("encoded", 7, descriptorpb.FieldDescriptorProto_TYPE_BOOL),
			},
		}},
	}
	fd, err := protodesc.NewFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Datum")
}

// toDynamic sets the fields Marshal documents it writes.
func toDynamic(md protoreflect.MessageDescriptor, d Datum) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	fields := md.Fields()
	set := func(name string, v protoreflect.Value) { m.Set(fields.ByName(protoreflect.Name(name)), v) }
	for _, f := range d.shapeFields() {
		set(string(fields.ByNumber(f.num).Name()), protoreflect.ValueOfInt32(f.v))
	}
	if d.writesData() {
		set("data", protoreflect.ValueOfBytes(d.Data))
	}
	set("label", protoreflect.ValueOfInt32(d.Label))
	if len(d.FloatData) > 0 {
		list := m.Mutable(fields.ByName("float_data")).List()
		for _, f := range d.FloatData {
			list.Append(protoreflect.ValueOfFloat32(f))
		}
	}
	set("encoded", protoreflect.ValueOfBool(d.Encoded))
	return m
}

// fromDynamic reads a decoded message back into a Datum.
func fromDynamic(m *dynamicpb.Message) Datum {
	fields := m.Descriptor().Fields()
	get := func(name string) protoreflect.Value { return m.Get(fields.ByName(protoreflect.Name(name))) }
	d := Datum{
		Channels: int32(get("channels").Int()),
		Height:   int32(get("height").Int()),
		Width:    int32(get("width").Int()),
		Data:     get("data").Bytes(),
		Label:    int32(get("label").Int()),
		Encoded:  get("encoded").Bool(),
	}
	list := get("float_data").List()
	for i := range list.Len() {
		d.FloatData = append(d.FloatData, float32(list.Get(i).Float()))
	}
	return d
}

// randomDatum returns a datum exercising every field, with negative and
// large values and NaN floats now and then.
func randomDatum(rng *rand.Rand) Datum {
	i32 := func() int32 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return -rng.Int32N(1 << 30)
		default:
			return rng.Int32N(1 << uint(1+rng.IntN(30)))
		}
	}
	d := Datum{Channels: i32(), Height: i32(), Width: i32(), Label: i32(), Encoded: rng.IntN(2) == 0}
	if rng.IntN(3) > 0 {
		d.Data = make([]byte, rng.IntN(300))
		for i := range d.Data {
			d.Data[i] = byte(rng.Uint32())
		}
	}
	if rng.IntN(3) == 0 {
		for range rng.IntN(20) {
			f := float32(rng.NormFloat64() * 1e3)
			if rng.IntN(10) == 0 {
				f = float32(math.NaN())
			}
			d.FloatData = append(d.FloatData, f)
		}
	}
	return d
}

func TestCompatibleWithProtobuf(t *testing.T) {
	unpacked, packed := datumDescriptor(t, false), datumDescriptor(t, true)
	rng := rand.New(rand.NewPCG(1, 2))
	cases := make([]Datum, 0, 520)
	for _, tt := range marshalTests {
		cases = append(cases, tt.d)
	}
	for range 500 {
		cases = append(cases, randomDatum(rng))
	}
	for i, d := range cases {
		ours := d.Marshal(nil)
		theirs, err := proto.MarshalOptions{Deterministic: true}.Marshal(toDynamic(unpacked, d))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("case %d %+v:\nMarshal  % x\nprotobuf % x", i, d, ours, theirs)
		}
		// protobuf decodes what we encode.
		m := dynamicpb.NewMessage(unpacked)
		if err := proto.Unmarshal(ours, m); err != nil || !equal(fromDynamic(m), d) {
			t.Fatalf("case %d: protobuf decoded %+v, %v; want %+v", i, fromDynamic(m), err, d)
		}
		// We decode what protobuf encodes packed.
		wire, err := proto.Marshal(toDynamic(packed, d))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Unmarshal(wire); err != nil || !equal(got, d) {
			t.Fatalf("case %d: Unmarshal of packed encoding = %+v, %v; want %+v", i, got, err, d)
		}
	}
}
