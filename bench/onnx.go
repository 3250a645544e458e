package bench

import (
	"encoding/binary"
	"fmt"
	"math"
)

// convIntegerModel writes the protobuf bytes of a one-node ONNX model,
// y = ConvInteger(x, w) with 3×3 zero padding 1, x int8 [1, cin, h, w],
// w int8 [cout, cin, k, k], y int32 (x uint8 for u8 data). Field numbers
// are onnx.proto's.
func convIntegerModel(p *peerConv) []byte {
	const (
		int8Type  = 3
		int32Type = 6
	)
	var node []byte
	node = pbBytes(node, 1, []byte("x"))
	node = pbBytes(node, 1, []byte("w"))
	node = pbBytes(node, 2, []byte("y"))
	node = pbBytes(node, 4, []byte("ConvInteger"))
	node = pbBytes(node, 5, intsAttr("kernel_shape", p.k, p.k))
	node = pbBytes(node, 5, intsAttr("pads", 1, 1, 1, 1))
	var graph []byte
	graph = pbBytes(graph, 1, node)
	graph = pbBytes(graph, 2, []byte("peer"))
	graph = pbBytes(graph, 11, valueInfo("x", p.xType(), 1, p.cin, p.side, p.side))
	graph = pbBytes(graph, 11, valueInfo("w", int8Type, p.cout, p.cin, p.k, p.k))
	graph = pbBytes(graph, 12, valueInfo("y", int32Type, 1, p.cout, p.side, p.side))
	return model(graph)
}

func valueInfo(name string, elem int, dims ...int) []byte {
	var shape []byte
	for _, d := range dims {
		shape = pbBytes(shape, 1, pbVarint(nil, 1, uint64(d)))
	}
	var tt []byte
	tt = pbVarint(tt, 1, uint64(elem))
	tt = pbBytes(tt, 2, shape)
	var vi []byte
	vi = pbBytes(vi, 1, []byte(name))
	return pbBytes(vi, 2, pbBytes(nil, 1, tt))
}

func pbVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

func pbBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// floatTwinModel writes the twin as an ONNX model (opset 13): input x
// float [1, C, H, W], output y; conv_transpose is ConvTranspose, conv is
// Conv, relu is Relu, and igdn is x·√(β + γ·x²): Mul(x, x), a 1×1 Conv with
// weights γ [C, C, 1, 1] and bias β, Sqrt, Mul by x. Weights are
// initializers holding raw little-endian float32.
func floatTwinModel(tw *twin) []byte {
	const floatType = 1
	var nodes, inits [][]byte
	n := 0
	fresh := func() string { n++; return fmt.Sprintf("t%d", n) }
	node := func(opType string, ins []string, out string, attrs ...[]byte) {
		var b []byte
		for _, in := range ins {
			b = pbBytes(b, 1, []byte(in))
		}
		b = pbBytes(b, 2, []byte(out))
		b = pbBytes(b, 4, []byte(opType))
		for _, a := range attrs {
			b = pbBytes(b, 5, a)
		}
		nodes = append(nodes, b)
	}
	initializer := func(v []float32, dims ...int) string {
		name := fresh()
		var t []byte
		for _, d := range dims {
			t = pbVarint(t, 1, uint64(d))
		}
		t = pbVarint(t, 2, floatType)
		t = pbBytes(t, 8, []byte(name))
		raw := make([]byte, 0, 4*len(v))
		for _, f := range v {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
		}
		inits = append(inits, pbBytes(t, 9, raw))
		return name
	}
	x := "x"
	for i, l := range tw.Layers {
		y := fresh()
		if i == len(tw.Layers)-1 {
			y = "y"
		}
		switch l.Op {
		case "conv_transpose":
			w := initializer(l.W, l.Cin, l.Cout, l.K[0], l.K[1])
			node("ConvTranspose", []string{x, w}, y, intsAttr("kernel_shape", l.K[:]...), intsAttr("strides", l.Stride[:]...),
				intsAttr("pads", l.Pad[0], l.Pad[1], l.Pad[0], l.Pad[1]), intsAttr("output_padding", l.OutPad[:]...))
		case "conv":
			w := initializer(l.W, l.Cout, l.Cin/l.Groups, l.K[0], l.K[1])
			node("Conv", []string{x, w}, y, intsAttr("kernel_shape", l.K[:]...), intsAttr("strides", l.Stride[:]...),
				intsAttr("pads", l.Pad[0], l.Pad[1], l.Pad[0], l.Pad[1]), intAttr("group", l.Groups))
		case "igdn":
			x2, nsum, r := fresh(), fresh(), fresh()
			node("Mul", []string{x, x}, x2)
			node("Conv", []string{x2, initializer(l.W, l.Cout, l.Cin, 1, 1), initializer(l.B, l.Cout)}, nsum, intsAttr("kernel_shape", 1, 1))
			node("Sqrt", []string{nsum}, r)
			node("Mul", []string{x, r}, y)
		case "relu":
			node("Relu", []string{x}, y)
		}
		x = y
	}
	var graph []byte
	for _, nd := range nodes {
		graph = pbBytes(graph, 1, nd)
	}
	graph = pbBytes(graph, 2, []byte("twin"))
	for _, in := range inits {
		graph = pbBytes(graph, 5, in)
	}
	graph = pbBytes(graph, 11, valueInfo("x", floatType, 1, tw.In.C, tw.In.H, tw.In.W))
	graph = pbBytes(graph, 12, valueInfo("y", floatType, 1, tw.Out.C, tw.Out.H, tw.Out.W))
	return model(graph)
}

// intsAttr is an AttributeProto of type INTS.
func intsAttr(name string, vals ...int) []byte {
	const ints = 7
	a := pbBytes(nil, 1, []byte(name))
	for _, v := range vals {
		a = pbVarint(a, 8, uint64(v))
	}
	return pbVarint(a, 20, ints)
}

// intAttr is an AttributeProto of type INT.
func intAttr(name string, v int) []byte {
	const intType = 2
	a := pbBytes(nil, 1, []byte(name))
	a = pbVarint(a, 3, uint64(v))
	return pbVarint(a, 20, intType)
}

// model wraps a graph in a ModelProto of IR version 8, opset 13.
func model(graph []byte) []byte {
	var m []byte
	m = pbVarint(m, 1, 8) // ir_version
	m = pbBytes(m, 7, graph)
	return pbBytes(m, 8, pbVarint(nil, 2, 13))
}
