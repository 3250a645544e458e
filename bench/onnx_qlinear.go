package bench

import (
	"encoding/binary"
	"math"
)

// ONNX TensorProto element types (onnx.proto's DataType).
const (
	onnxFloat = 1
	onnxUint8 = 2
	onnxInt8  = 3
)

// xType is the ONNX element type of the peer conv's input.
func (p *peerConv) xType() int {
	if p.unsigned {
		return onnxUint8
	}
	return onnxInt8
}

// qlinearConvModel writes the protobuf bytes of a one-node ONNX model, ORT's
// com.microsoft QLinearConv with channels_last = 1: x [1, h, w, cin] (i8 or
// u8, NHWC) → y [1, h, w, cout] of x's type. Every scale is 1 but y's,
// 2^qShift, and every zero point 0, so y = saturate(round_half_even(Σ x·w /
// 2^qShift)): graph(true)'s output, exactly: a sum below 2^24 is an exact
// float32 and so is its product with a power of two, and a sum beyond
// 2^24 (u8 data reach 576·255·128) saturates whatever its rounding. The
// weights [cout, cin, k, k] are an initializer, as in a deployed model, so
// ORT packs them once at load.
func qlinearConvModel(p *peerConv) []byte {
	const msDomain = "com.microsoft"
	one := tensorInit("one", onnxFloat, float32Bytes(1))
	var node []byte
	for _, in := range []string{"x", "one", "xzp", "w", "one", "wzp", "yscale", "xzp"} {
		node = pbBytes(node, 1, []byte(in))
	}
	node = pbBytes(node, 2, []byte("y"))
	node = pbBytes(node, 4, []byte("QLinearConv"))
	node = pbBytes(node, 5, intsAttr("kernel_shape", p.k, p.k))
	node = pbBytes(node, 5, intsAttr("pads", 1, 1, 1, 1))
	node = pbBytes(node, 5, intAttr("channels_last", 1))
	node = pbBytes(node, 7, []byte(msDomain))
	w := make([]byte, len(p.w))
	for i, v := range p.w {
		w[i] = byte(v)
	}
	var graph []byte
	graph = pbBytes(graph, 1, node)
	graph = pbBytes(graph, 2, []byte("peer"))
	for _, t := range [][]byte{one, tensorInit("xzp", p.xType(), []byte{0}), tensorInit("wzp", onnxInt8, []byte{0}),
		tensorInit("yscale", onnxFloat, float32Bytes(1<<qShift)), tensorInit("w", onnxInt8, w, p.cout, p.cin, p.k, p.k)} {
		graph = pbBytes(graph, 5, t)
	}
	graph = pbBytes(graph, 11, valueInfo("x", p.xType(), 1, p.side, p.side, p.cin))
	graph = pbBytes(graph, 12, valueInfo("y", p.xType(), 1, p.side, p.side, p.cout))
	m := model(graph)
	// A second opset_import (ModelProto field 8): com.microsoft, version 1.
	return pbBytes(m, 8, pbVarint(pbBytes(nil, 1, []byte(msDomain)), 2, 1))
}

// tensorInit is a TensorProto initializer holding raw little-endian data:
// dims (none for a scalar), data_type, name, raw_data.
func tensorInit(name string, elem int, raw []byte, dims ...int) []byte {
	var t []byte
	for _, d := range dims {
		t = pbVarint(t, 1, uint64(d))
	}
	t = pbVarint(t, 2, uint64(elem))
	t = pbBytes(t, 8, []byte(name))
	return pbBytes(t, 9, raw)
}

func float32Bytes(f float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))
}
