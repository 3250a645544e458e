package bench

import (
	"github.com/waiops/waiops/onnx"
)

// i64s widens the bench's int dims and attributes to ONNX's int64.
func i64s(v ...int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// convIntegerModel writes a one-node ONNX model, y = ConvInteger(x, w) with
// 3×3 zero padding 1, x int8 [1, cin, h, w] (uint8 for u8 data), w int8
// [cout, cin, k, k], y int32, through the onnx package's protobuf binding.
func convIntegerModel(p *peerConv) ([]byte, error) {
	b := onnx.NewBuilder("peer", 13)
	b.Node("ConvInteger", []string{"x", "w"}, []string{"y"},
		onnx.IntsAttr("kernel_shape", i64s(p.k, p.k)...), onnx.IntsAttr("pads", 1, 1, 1, 1))
	b.Input("x", p.xType(), i64s(1, p.cin, p.side, p.side)...)
	b.Input("w", onnx.Int8, i64s(p.cout, p.cin, p.k, p.k)...)
	b.Output("y", onnx.Int32, i64s(1, p.cout, p.side, p.side)...)
	return b.Bytes()
}

// floatTwinModel writes the twin as an ONNX model (opset 13): input x
// float [1, C, H, W], output y; conv_transpose is ConvTranspose, conv is
// Conv, relu is Relu, and igdn is x·√(β + γ·x²): Mul(x, x), a 1×1 Conv with
// weights γ [C, C, 1, 1] and bias β, Sqrt, Mul by x, the form `waiops
// import` maps to igdn. Weights are float32 initialisers.
func floatTwinModel(tw *twin) ([]byte, error) {
	b := onnx.NewBuilder("twin", 13)
	x := "x"
	for i, l := range tw.Layers {
		y := b.Fresh()
		if i == len(tw.Layers)-1 {
			y = "y"
		}
		switch l.Op {
		case "conv_transpose":
			w := b.Floats(l.W, i64s(l.Cin, l.Cout, l.K[0], l.K[1])...)
			b.Node("ConvTranspose", []string{x, w}, []string{y}, onnx.IntsAttr("kernel_shape", i64s(l.K[:]...)...),
				onnx.IntsAttr("strides", i64s(l.Stride[:]...)...), onnx.IntsAttr("pads", i64s(l.Pad[0], l.Pad[1], l.Pad[0], l.Pad[1])...),
				onnx.IntsAttr("output_padding", i64s(l.OutPad[:]...)...))
		case "conv":
			w := b.Floats(l.W, i64s(l.Cout, l.Cin/l.Groups, l.K[0], l.K[1])...)
			b.Node("Conv", []string{x, w}, []string{y}, onnx.IntsAttr("kernel_shape", i64s(l.K[:]...)...),
				onnx.IntsAttr("strides", i64s(l.Stride[:]...)...), onnx.IntsAttr("pads", i64s(l.Pad[0], l.Pad[1], l.Pad[0], l.Pad[1])...),
				onnx.IntAttr("group", int64(l.Groups)))
		case "igdn":
			x2 := b.Op("Mul", []string{x, x})
			n := b.Op("Conv", []string{x2, b.Floats(l.W, i64s(l.Cout, l.Cin, 1, 1)...), b.Floats(l.B, int64(l.Cout))},
				onnx.IntsAttr("kernel_shape", 1, 1))
			b.Node("Mul", []string{x, b.Op("Sqrt", []string{n})}, []string{y})
		case "relu":
			b.Node("Relu", []string{x}, []string{y})
		}
		x = y
	}
	b.Input("x", onnx.Float, i64s(1, tw.In.C, tw.In.H, tw.In.W)...)
	b.Output("y", onnx.Float, i64s(1, tw.Out.C, tw.Out.H, tw.Out.W)...)
	return b.Bytes()
}
