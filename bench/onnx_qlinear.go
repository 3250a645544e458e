package bench

import (
	"encoding/binary"
	"math"

	"github.com/waiops/waiops/onnx"
)

// xType is the ONNX element type of the peer conv's input.
func (p *peerConv) xType() int32 {
	if p.unsigned {
		return onnx.Uint8
	}
	return onnx.Int8
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
func qlinearConvModel(p *peerConv) ([]byte, error) {
	const msDomain = "com.microsoft"
	b := onnx.NewBuilder("peer", 13)
	b.ImportDomain(msDomain, 1)
	n := b.Node("QLinearConv", []string{"x", "one", "xzp", "w", "one", "wzp", "yscale", "xzp"}, []string{"y"},
		onnx.IntsAttr("kernel_shape", i64s(p.k, p.k)...), onnx.IntsAttr("pads", 1, 1, 1, 1), onnx.IntAttr("channels_last", 1))
	n.Domain = msDomain
	w := make([]byte, len(p.w))
	for i, v := range p.w {
		w[i] = byte(v)
	}
	for _, t := range []*onnx.TensorProto{
		onnx.RawTensor("one", onnx.Float, float32Bytes(1)),
		onnx.RawTensor("xzp", p.xType(), []byte{0}),
		onnx.RawTensor("wzp", onnx.Int8, []byte{0}),
		onnx.RawTensor("yscale", onnx.Float, float32Bytes(1<<qShift)),
		onnx.RawTensor("w", onnx.Int8, w, i64s(p.cout, p.cin, p.k, p.k)...),
	} {
		b.Init(t)
	}
	b.Input("x", p.xType(), i64s(1, p.side, p.side, p.cin)...)
	b.Output("y", p.xType(), i64s(1, p.side, p.side, p.cout)...)
	return b.Bytes()
}

func float32Bytes(f float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))
}
