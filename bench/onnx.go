package bench

import "encoding/binary"

// convIntegerModel writes the protobuf bytes of a one-node ONNX model,
// y = ConvInteger(x, w) with 3×3 zero padding 1, x int8 [1, cin, h, w],
// w int8 [cout, cin, k, k], y int32. Field numbers are onnx.proto's.
func convIntegerModel(p *peerConv) []byte {
	const (
		int8Type  = 3
		int32Type = 6
		intsAttr  = 7
	)
	attr := func(name string, vals ...int) []byte {
		var a []byte
		a = pbBytes(a, 1, []byte(name))
		for _, v := range vals {
			a = pbVarint(a, 8, uint64(v))
		}
		return pbVarint(a, 20, intsAttr)
	}
	var node []byte
	node = pbBytes(node, 1, []byte("x"))
	node = pbBytes(node, 1, []byte("w"))
	node = pbBytes(node, 2, []byte("y"))
	node = pbBytes(node, 4, []byte("ConvInteger"))
	node = pbBytes(node, 5, attr("kernel_shape", p.k, p.k))
	node = pbBytes(node, 5, attr("pads", 1, 1, 1, 1))
	var graph []byte
	graph = pbBytes(graph, 1, node)
	graph = pbBytes(graph, 2, []byte("peer"))
	graph = pbBytes(graph, 11, valueInfo("x", int8Type, 1, p.cin, p.side, p.side))
	graph = pbBytes(graph, 11, valueInfo("w", int8Type, p.cout, p.cin, p.k, p.k))
	graph = pbBytes(graph, 12, valueInfo("y", int32Type, 1, p.cout, p.side, p.side))
	var opset []byte
	opset = pbVarint(opset, 2, 13)
	var m []byte
	m = pbVarint(m, 1, 8) // ir_version
	m = pbBytes(m, 7, graph)
	m = pbBytes(m, 8, opset)
	return m
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
