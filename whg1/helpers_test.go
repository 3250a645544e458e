package whg1

import (
	"errors"
	"strings"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// builder assembles graph literals for the tests: every tensor it adds is
// derived with no exponent unless the test edits it afterwards.
type builder struct{ g *Graph }

// newBuilder starts a graph whose input 0 is [c, h, w] (h = w = 0: sizes
// set per decode), check [-128, 127].
func newBuilder(c, h, w uint32) *builder {
	b := &builder{g: &Graph{Version: 1, OpSet: 1, MaxElems: 1 << 26}}
	b.input(c, h, w)
	return b
}

// input adds a data input of c channels, check [-128, 127].
func (b *builder) input(c, h, w uint32) uint32 {
	t := b.tensor(c)
	b.g.Tensors[t].Policy, b.g.Tensors[t].Lo, b.g.Tensors[t].Hi = Check, -128, 127
	b.g.Inputs = append(b.g.Inputs, Input{Tensor: t, MaxH: h, MaxW: w})
	return t
}

func (b *builder) tensor(c uint32) uint32 {
	b.g.Tensors = append(b.g.Tensors, Tensor{Channels: c, Exponent: NoExponent})
	return uint32(len(b.g.Tensors) - 1)
}

func (b *builder) scalar(lo, hi int64) uint32 {
	b.g.Scalars = append(b.g.Scalars, Scalar{lo, hi})
	return uint32(len(b.g.Scalars) - 1)
}

// op appends an operator whose outputs are new tensors of the given
// channel counts, and returns the output tensor indices.
func (b *builder) op(code Opcode, p any, in []uint32, outC ...uint32) []uint32 {
	out := make([]uint32, len(outC))
	for k, c := range outC {
		out[k] = b.tensor(c)
	}
	b.g.Ops = append(b.g.Ops, Op{Code: code, In: in, Out: out, Params: p})
	return out
}

// op1 is op for one input and one output.
func (b *builder) op1(code Opcode, p any, in uint32, outC uint32) uint32 {
	return b.op(code, p, []uint32{in}, outC)[0]
}

func (b *builder) done(outputs ...uint32) *Graph {
	b.g.Outputs = outputs
	return b.g
}

// wantRefusal fails unless err is a *refusal.Error with the code and a
// message containing every one of parts.
func wantRefusal(t *testing.T, err error, code refusal.Code, parts ...string) {
	t.Helper()
	var r *refusal.Error
	if !errors.As(err, &r) {
		t.Fatalf("want refusal %s (%q), have %v", code, parts, err)
	}
	if r.Code != code {
		t.Fatalf("want refusal %s (%q), have %v", code, parts, err)
	}
	for _, p := range parts {
		if !strings.Contains(r.Msg, p) {
			t.Fatalf("want refusal %s with %q in the message, have %v", code, p, err)
		}
	}
}

// one is an RQ with no multiplier, one shift and no bias.
func one(shift uint8) RQ { return RQ{SKind: 1, Shift: []uint8{shift}} }

// lutTable is a valid lut16 table: T[0] = 0, T[i] = wrap16(i·7).
func lutTable() []int16 {
	t := make([]int16, 1<<16)
	for i := 1; i < len(t); i++ {
		t[i] = int16(i * 7)
	}
	return t
}

// seq is 1, 2, …, n with alternating signs: weights and tables with
// distinct values, so a byte slip in the encoder shows.
func seq(n int, scale int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i+1) * scale
		if i%2 == 1 {
			v[i] = -v[i]
		}
	}
	return v
}

// allOps is one graph, sizes declared [4, 8, 8], that uses each of the 30
// operators once (split twice). Shapes, worked from §5 by hand, are in the
// comments; TestPlanAllOps checks them.
//
// Scalars: 0 the chscale row [0, 1], 1 the crop start [0, 2], 2 the crop
// height [1, 4], 3 the fill value [-5, 5].
func allOps() *Graph {
	b := newBuilder(4, 8, 8)
	b.scalar(0, 1)
	b.scalar(0, 2)
	b.scalar(1, 4)
	b.scalar(-5, 5)
	in := uint32(0)
	t1 := b.op1(OpConv, &Conv{Cout: 4, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 2, WBytes: 1,
		RQ: RQ{Round: HalfEven, Bias: PostBias, MKind: 2, SKind: 2, MBytes: 4, BBytes: 8,
			Mult: []int64{3, -4, 1 << 30, -(1 << 31)}, Shift: []uint8{0, 1, 64, 127}, BiasV: []int64{1 << 40, -1, 0, 7}},
		W: seq(4*2*9, 1)}, in, 4) // [4, 8, 8]
	t2 := b.op1(OpRescale, &Rescale{RQ: RQ{Round: HalfUp, Bias: PreBias, MKind: 1, SKind: 1, MBytes: 8, BBytes: 4,
		Mult: []int64{-(1 << 62)}, Shift: []uint8{3}, BiasV: []int64{-(1 << 31), 1, 2, 3}}}, t1, 4)
	t3 := b.op1(OpChscale, &Chscale{Scalar: 0, NRows: 2, Round: Floor, MBytes: 4, Shift: 3, M: seq(8, 5)}, t2, 4)
	t4 := b.op1(OpLut16, &Lut16{EIn: NoExponent, EOut: NoExponent, T: lutTable()}, t3, 4)
	t5 := b.op(OpAdd, nil, []uint32{t4, t3}, 4)[0]
	t6 := b.op(OpConcat, nil, []uint32{t5, t4, t3}, 12)[0]  // [12, 8, 8]
	t7 := b.op1(OpChunkAdd, nil, t6, 6)                     // [6, 8, 8]
	t8 := b.op1(OpSplit, &Split{Start: 1, Count: 4}, t7, 4) // [4, 8, 8]
	t9 := b.op1(OpPixelUnshuffle, &Factor{N: 2}, t8, 16)    // [16, 4, 4]
	t10 := b.op1(OpPixelShuffle, &Factor{N: 2}, t9, 4)      // [4, 8, 8]
	t11 := b.op1(OpClamp, &ClampParams{Lo: -100, Hi: 100}, t10, 4)
	t12 := b.op1(OpRelu, nil, t11, 4)
	t13 := b.op1(OpLeaky, &Leaky{A: -3, F: 63}, t12, 4)
	t14 := b.op1(OpPadRep, &Factor{N: 3}, t13, 4)             // [4, 9, 9]
	t15 := b.op(OpCropTo, nil, []uint32{t14, t13}, 4)[0]      // [4, 8, 8]
	t16 := b.op1(OpSplit, &Split{Start: 3, Count: 1}, t15, 1) // [1, 8, 8]
	t17 := b.op(OpMul, &Rescale{RQ: RQ{Round: HalfUp, SKind: 2, Shift: []uint8{1, 2, 3, 4}}}, []uint32{t15, t16}, 4)[0]
	t18 := b.op1(OpConvTranspose, &ConvT{Cout: 2, KH: 2, KW: 2, SH: 2, SW: 2, OPH: 0, OPW: 1, PW: 0, WBytes: 2,
		RQ: one(4), W: seq(4*2*2*2, 1000)}, t17, 2) // uh = 7·2 + 2 = 16, uw = 17: [2, 16, 17]
	t19 := b.op1(OpIGDN, &IGDN{GF: 10, Frac: 127, GBytes: 4, Gamma: []int64{1 << 20, -2, 3, 1 << 30}, Beta: []int64{1 << 50, 9}}, t18, 2)
	t20 := b.op1(OpAbs, nil, t19, 2)
	// crop: y0 = scalar 1, x0 = 2, h = scalar 2, w = 8. At load: y0 = 0,
	// h = min(4, 16 − 0) = 4: [2, 4, 8].
	t21 := b.op1(OpCrop, &Crop{Y0: Operand{true, 1}, X0: Operand{false, 2}, H: Operand{true, 2}, W: Operand{false, 8}}, t20, 2)
	sp := b.op(OpSubposSplit, &Subpos{Order: [4]uint8{3, 1, 2, 0}}, []uint32{t21}, 2, 2, 2, 2) // 4 × [2, 2, 4]
	t26 := b.op(OpSubposMerge, &Subpos{Order: [4]uint8{3, 1, 2, 0}}, sp, 2)[0]                 // [2, 4, 8]
	t27 := b.op1(OpFill, &Fill{Scalar: true, Value: 3}, t26, 3)                                // [3, 4, 8]
	t28 := b.op1(OpLayerNormC, &LayerNorm{Eps: 1<<64 - 1, GBytes: 8, Gamma: []int64{1 << 40, -1, 65536}, Beta: []int64{-3, 0, 3}}, t27, 3)
	t29 := b.op1(OpL2Norm, &L2Norm{Eps: 5}, t28, 3)
	t30 := b.op1(OpSoftmax, nil, t29, 3)
	t31 := b.op1(OpSigmoid, nil, t30, 3)
	t32 := b.op1(OpElu, &Elu{Alpha: -7}, t31, 3)
	t33 := b.op(OpGram, &Contraction{Groups: 3, RQ: RQ{Round: HalfUp, SKind: 1, Shift: []uint8{16}}}, []uint32{t32, t32}, 3)[0] // d = 1: [3, 1, 1]
	t34 := b.op(OpApply, &Contraction{Groups: 3, RQ: RQ{Round: Floor, SKind: 1, Shift: []uint8{0}}}, []uint32{t33, t32}, 3)[0]  // [3, 4, 8]
	return b.done(t34, t5)
}
