package importer

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// opCase is one hand-built model: build appends nodes to input "x" and
// names the outputs it returns; want is each output's float value on in,
// worked out by hand; ops are the WHG1 operators the import writes.
type opCase struct {
	name  string
	in    *tensor.T
	build func(b *onnx.Builder) []string
	want  [][]float64
	ops   []whg1.Opcode
}

func tens(c, h, w int, v ...int64) *tensor.T {
	t := tensor.New(tensor.Shape{C: c, H: h, W: w})
	copy(t.Data, v)
	return t
}

// two is [2, 1, 2]: channel 0 = [1, 2], channel 1 = [3, −1].
func two() *tensor.T { return tens(2, 1, 2, 1, 2, 3, -1) }

func one(v ...int64) *tensor.T { return tens(1, 1, len(v), v...) }

func build(t *testing.T, c opCase) []byte {
	t.Helper()
	b := onnx.NewBuilder(c.name, 13)
	b.Input("x", onnx.Float, 1, int64(c.in.Shape.C), -1, -1)
	for _, o := range c.build(b) {
		b.Output(o, onnx.Float)
	}
	m, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func opCases() []opCase {
	ints := func(v ...int64) []int64 { return v }
	return []opCase{
		{name: "conv1x1", in: two(), build: func(b *onnx.Builder) []string {
			// out0 = x0 + 2·x1 + 0.5, out1 = 3·x0 + 4·x1 − 1.
			b.Node("Conv", []string{"x", b.Floats([]float32{1, 2, 3, 4}, 2, 2, 1, 1), b.Floats([]float32{0.5, -1}, 2)}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{7.5, 0.5, 14, 1}}, ops: []whg1.Opcode{whg1.OpConv}},
		{name: "depthwise3x3", in: tens(2, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9), build: func(b *onnx.Builder) []string {
			// Channel 0 sums its 3×3 neighbourhood; channel 1 doubles.
			w := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0}
			b.Node("Conv", []string{"x", b.Floats(w, 2, 1, 3, 3)}, []string{"y"}, onnx.IntAttr("group", 2), onnx.IntsAttr("pads", 1, 1, 1, 1))
			return []string{"y"}
		}, want: [][]float64{{12, 21, 16, 27, 45, 33, 24, 39, 28, 2, 4, 6, 8, 10, 12, 14, 16, 18}}, ops: []whg1.Opcode{whg1.OpConv}},
		{name: "conv_stride2", in: tens(1, 4, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), build: func(b *onnx.Builder) []string {
			// 3×3 ones, stride 2, pad 1: out[0][0] = 1+2+5+6, out[0][1] = 2+3+4+6+7+8,
			// out[1][0] = 5+6+9+10+13+14, out[1][1] = 6+7+8+10+11+12+14+15+16.
			b.Node("Conv", []string{"x", b.Floats(slices.Repeat([]float32{1}, 9), 1, 1, 3, 3)}, []string{"y"},
				onnx.IntsAttr("strides", 2, 2), onnx.IntsAttr("pads", 1, 1, 1, 1))
			return []string{"y"}
		}, want: [][]float64{{14, 30, 57, 99}}, ops: []whg1.Opcode{whg1.OpConv}},
		{name: "conv_transpose", in: tens(1, 2, 2, 1, 2, 3, 4), build: func(b *onnx.Builder) []string {
			// 3×3 ones, stride 2, pads 1, output_padding 1: a 4×4 output.
			b.Node("ConvTranspose", []string{"x", b.Floats(slices.Repeat([]float32{1}, 9), 1, 1, 3, 3)}, []string{"y"},
				onnx.IntsAttr("strides", 2, 2), onnx.IntsAttr("pads", 1, 1, 1, 1), onnx.IntsAttr("output_padding", 1, 1))
			return []string{"y"}
		}, want: [][]float64{{1, 3, 2, 2, 4, 10, 6, 6, 3, 7, 4, 4, 3, 7, 4, 4}}, ops: []whg1.Opcode{whg1.OpConvTranspose}},
		{name: "relu", in: one(-2, 3), build: func(b *onnx.Builder) []string {
			b.Node("Relu", []string{"x"}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{0, 3}}, ops: []whg1.Opcode{whg1.OpRelu}},
		{name: "leaky", in: one(-2, 3), build: func(b *onnx.Builder) []string {
			b.Node("LeakyRelu", []string{"x"}, []string{"y"}, onnx.FloatAttr("alpha", 0.5))
			return []string{"y"}
		}, want: [][]float64{{-1, 3}}, ops: []whg1.Opcode{whg1.OpLeaky}},
		{name: "clip", in: one(-4, 3, 1), build: func(b *onnx.Builder) []string {
			// The halving puts the Clip's input at a scale other than 1.
			h := b.Op("Mul", []string{"x", b.Floats([]float32{0.5})})
			b.Node("Clip", []string{h, b.Floats([]float32{-1}), b.Floats([]float32{1})}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{-1, 1, 0.5}}, ops: []whg1.Opcode{whg1.OpRescale, whg1.OpClamp}},
		{name: "add", in: one(-2, 3), build: func(b *onnx.Builder) []string {
			b.Node("Add", []string{"x", b.Op("Relu", []string{"x"})}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{-2, 6}}, ops: []whg1.Opcode{whg1.OpRelu, whg1.OpRescale, whg1.OpRescale, whg1.OpAdd}},
		{name: "mul_per_channel", in: two(), build: func(b *onnx.Builder) []string {
			b.Node("Mul", []string{"x", b.Floats([]float32{2, -0.5}, 1, 2, 1, 1)}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{2, 4, -1.5, 0.5}}, ops: []whg1.Opcode{whg1.OpRescale}},
		{name: "div_sub_add", in: one(-2, 3), build: func(b *onnx.Builder) []string {
			// ((x / 4) − 1) + 0.25, each by a constant; the 4 from a Constant node.
			four := b.Fresh()
			b.Node("Constant", nil, []string{four}, onnx.TensorAttr("value", onnx.FloatTensor("", []float32{4})))
			y := b.Op("Sub", []string{b.Op("Div", []string{"x", four}), b.Floats([]float32{1})})
			b.Node("Add", []string{y, b.Floats([]float32{0.25})}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{-1.25, 0}}, ops: []whg1.Opcode{whg1.OpRescale, whg1.OpRescale, whg1.OpRescale}},
		{name: "concat_identity", in: one(-2, 3), build: func(b *onnx.Builder) []string {
			r := b.Op("Identity", []string{b.Op("Relu", []string{"x"})})
			b.Node("Concat", []string{"x", r}, []string{"y"}, onnx.IntAttr("axis", 1))
			return []string{"y"}
		}, want: [][]float64{{-2, 3, 0, 3}}, ops: []whg1.Opcode{whg1.OpRelu, whg1.OpConcat}},
		{name: "split_slice", in: tens(4, 1, 1, 1, 2, 3, 4), build: func(b *onnx.Builder) []string {
			b.Node("Split", []string{"x", b.Ints(ints(1, 3), 2)}, []string{"a", "b"}, onnx.IntAttr("axis", 1))
			b.Node("Slice", []string{"b", b.Ints(ints(1), 1), b.Ints(ints(1<<62), 1), b.Ints(ints(1), 1)}, []string{"c"})
			return []string{"a", "c"}
		}, want: [][]float64{{1}, {3, 4}}, ops: []whg1.Opcode{whg1.OpSplit, whg1.OpSplit, whg1.OpSplit}},
		{name: "pad_conv", in: tens(1, 2, 2, 1, 2, 3, 4), build: func(b *onnx.Builder) []string {
			// A zero Pad of 1 folds into the 3×3 Conv that follows.
			p := b.Op("Pad", []string{"x", b.Ints(ints(0, 0, 1, 1, 0, 0, 1, 1), 8)})
			b.Node("Conv", []string{p, b.Floats(slices.Repeat([]float32{1}, 9), 1, 1, 3, 3)}, []string{"y"})
			return []string{"y"}
		}, want: [][]float64{{10, 10, 10, 10}}, ops: []whg1.Opcode{whg1.OpConv}},
		{name: "depth_to_space", in: tens(4, 1, 1, 1, 2, -3, 4), build: func(b *onnx.Builder) []string {
			b.Node("DepthToSpace", []string{"x"}, []string{"y"}, onnx.IntAttr("blocksize", 2), onnx.StringAttr("mode", "CRD"))
			return []string{"y"}
		}, want: [][]float64{{1, 2, -3, 4}}, ops: []whg1.Opcode{whg1.OpPixelShuffle}},
		{name: "depth_to_space_dcr", in: tens(1, 1, 1, 1), build: func(b *onnx.Builder) []string {
			// A 1×1 Conv makes channels 1…8; DCR with r = 2 reads channel
			// (i·2 + j)·2 + c, folded into the Conv's output order.
			y := b.Op("Conv", []string{"x", b.Floats([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 8, 1, 1, 1)})
			b.Node("DepthToSpace", []string{y}, []string{"y"}, onnx.IntAttr("blocksize", 2), onnx.StringAttr("mode", "DCR"))
			return []string{"y"}
		}, want: [][]float64{{1, 3, 5, 7, 2, 4, 6, 8}}, ops: []whg1.Opcode{whg1.OpConv, whg1.OpPixelShuffle}},
		{name: "depth_to_space_dcr_convT", in: tens(1, 1, 1, 1), build: func(b *onnx.Builder) []string {
			y := b.Op("ConvTranspose", []string{"x", b.Floats([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 1, 8, 1, 1)})
			b.Node("DepthToSpace", []string{y}, []string{"y"}, onnx.IntAttr("blocksize", 2))
			return []string{"y"}
		}, want: [][]float64{{1, 3, 5, 7, 2, 4, 6, 8}}, ops: []whg1.Opcode{whg1.OpConvTranspose, whg1.OpPixelShuffle}},
		{name: "resize2", in: one(1, -2), build: func(b *onnx.Builder) []string {
			b.Node("Resize", []string{"x", "", b.Floats([]float32{1, 1, 2, 2}, 4)}, []string{"y"}, onnx.StringAttr("mode", "nearest"),
				onnx.StringAttr("coordinate_transformation_mode", "asymmetric"), onnx.StringAttr("nearest_mode", "floor"))
			return []string{"y"}
		}, want: [][]float64{{1, 1, -2, -2, 1, 1, -2, -2}}, ops: []whg1.Opcode{whg1.OpSubposMerge}},
	}
}

// TestOps checks each op's float evaluation against the hand-worked values
// and its import: the operators written, and the exact decode within one
// integer unit of the float one (i16 activations and weights).
func TestOps(t *testing.T) {
	for _, c := range opCases() {
		t.Run(c.name, func(t *testing.T) {
			model := build(t, c)
			m, err := onnx.Parse(model, onnx.DefaultCaps)
			if err != nil {
				t.Fatal(err)
			}
			net, err := match(m)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := net.evaluate(floatOf(c.in))
			if err != nil {
				t.Fatal(err)
			}
			for k, o := range net.outputs {
				if got := vals[o].d; !slices.Equal(got, c.want[k]) {
					t.Fatalf("output %d: float %v, want %v", k, got, c.want[k])
				}
			}
			cal := []Latent{{Name: "in", T: c.in}}
			r := mustImportW(t, model, cal, 16, 16, certify.Acc32)
			var ops []whg1.Opcode
			for _, op := range r.g.Ops {
				ops = append(ops, op.Code)
			}
			if !slices.Equal(ops, c.ops) {
				t.Fatalf("operators %v, want %v", ops, c.ops)
			}
			oe, _, err := r.Measure(cal)
			if err != nil {
				t.Fatal(err)
			}
			for k, o := range oe {
				// Within half an integer unit plus the scale's rounding.
				if o.MaxAbs > 1.0*r.Outputs[k].Scale {
					t.Errorf("output %s: exact decode off the float by %v (scale %v)", o.Name, o.MaxAbs, r.Outputs[k].Scale)
				}
			}
		})
	}
}

// TestIGDNVariants maps each way PyTorch writes IGDN to one igdn and checks
// y = x·√(β + γ·x²) with γ = 0.5, β = 1 on x = 2 and −1: 2·√3 and −√1.5.
func TestIGDNVariants(t *testing.T) {
	for _, v := range []igdnVariant{{}, {pow: true}, {swap: true}, {rsqrt: "div"}, {rsqrt: "recip", pow: true}} {
		c := opCase{name: "igdn", in: one(2, -1), build: func(b *onnx.Builder) []string {
			y := igdnNodes(b, "x", 1, []float32{0.5}, []float32{1}, v)
			b.Node("Identity", []string{y}, []string{"y"})
			return []string{"y"}
		}}
		model := build(t, c)
		m, _ := onnx.Parse(model, onnx.DefaultCaps)
		net, err := match(m)
		if err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		if len(net.layers) != 1 || net.layers[0].kind != kIGDN {
			t.Fatalf("%+v: layers %+v", v, net.layers)
		}
		vals, _ := net.evaluate(floatOf(c.in))
		got := vals[net.outputs[0]].d
		if math.Abs(got[0]-2*math.Sqrt(3)) > 1e-6 || math.Abs(got[1]+math.Sqrt(1.5)) > 1e-6 {
			t.Fatalf("%+v: %v", v, got)
		}
		r := mustImportW(t, model, []Latent{{Name: "in", T: c.in}}, 16, 16, certify.Acc32)
		oe, _, _ := r.Measure([]Latent{{Name: "in", T: c.in}})
		// Two floors, isqrt's and the output's (§5.7), each within a unit.
		if oe[0].MaxAbs > 2*r.Outputs[0].Scale {
			t.Errorf("%+v: exact igdn off by %v (scale %v)", v, oe[0].MaxAbs, r.Outputs[0].Scale)
		}
	}
}

// TestIGDNUnfolded: β and γ left as their parametrisation (a bound by Max,
// a square by Pow, a pedestal by Sub, a Reshape) fold to constants.
func TestIGDNUnfolded(t *testing.T) {
	c := opCase{name: "igdn_unfolded", in: one(2, -1), build: func(b *onnx.Builder) []string {
		ped := b.Floats([]float32{0.25})
		param := func(v float32, shape []int64) string {
			x := b.Op("Max", []string{b.Floats([]float32{v}), b.Floats([]float32{0.5})})
			x = b.Op("Sub", []string{b.Op("Pow", []string{x, b.Floats([]float32{2})}), ped})
			return b.Op("Reshape", []string{x, b.Ints(shape, int64(len(shape)))})
		}
		// γ = 0.75² − 0.25 = 0.3125, β = 1.5² − 0.25 = 2.
		gamma, beta := param(0.75, []int64{1, 1, 1, 1}), param(1.5, []int64{1})
		n := b.Op("Conv", []string{b.Op("Mul", []string{"x", "x"}), gamma, beta})
		b.Node("Mul", []string{"x", b.Op("Sqrt", []string{n})}, []string{"y"})
		return []string{"y"}
	}}
	m, _ := onnx.Parse(build(t, c), onnx.DefaultCaps)
	net, err := match(m)
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := net.evaluate(floatOf(c.in))
	if got := vals[net.outputs[0]].d; math.Abs(got[0]-2*math.Sqrt(2+0.3125*4)) > 1e-6 {
		t.Fatalf("%v", got)
	}
}

// TestAccumulatorBudget: a conv whose i16 weights at full scale would pass
// i32 over the input's range has its weight scale raised until the
// certificate meets acc32.
func TestAccumulatorBudget(t *testing.T) {
	const cin = 64
	c := opCase{name: "budget", in: tens(cin, 2, 2), build: func(b *onnx.Builder) []string {
		w := make([]float32, cin*9)
		for i := range w {
			w[i] = -float32(1+i%5) / 10
		}
		// After the Relu the input's range is [0, L]: with negative
		// weights only the partial sums' lower ends bind.
		b.Node("Conv", []string{b.Op("Relu", []string{"x"}), b.Floats(w, 1, cin, 3, 3)}, []string{"y"}, onnx.IntsAttr("pads", 1, 1, 1, 1))
		return []string{"y"}
	}}
	for i := range c.in.Data {
		c.in.Data[i] = int64(i%201) - 100
	}
	r := mustImportW(t, build(t, c), []Latent{{Name: "in", T: c.in}}, 16, 16, certify.Acc32)
	if r.Layers[1].Raised != 1 {
		t.Fatalf("raised %d channels, want 1", r.Layers[1].Raised)
	}
	acc := r.Cert.Graphs[0].Nodes[1].Intermediates["conv.acc"]
	if acc.Bits() > 32 || acc.Lo.Int64() > -(1<<30) {
		t.Fatalf("conv.acc %v: want a lower end close to −2^31", acc)
	}
}

// TestRefusals: every node or pattern the importer cannot map is refused
// (model_mismatch) with the node's name and op type.
func TestRefusals(t *testing.T) {
	w9 := func(b *onnx.Builder) string { return b.Floats(slices.Repeat([]float32{1}, 9), 1, 1, 3, 3) }
	for _, c := range []struct {
		name  string
		build func(b *onnx.Builder) []string
		want  string
	}{
		{"unknown op", func(b *onnx.Builder) []string { return []string{b.Op("Tanh", []string{"x"})} }, "(Tanh): no wai-ops/1 operator"},
		{"dilation", func(b *onnx.Builder) []string {
			return []string{b.Op("Conv", []string{"x", w9(b)}, onnx.IntsAttr("dilations", 2, 2))}
		}, "(Conv): dilation 2"},
		{"asymmetric pads", func(b *onnx.Builder) []string {
			return []string{b.Op("Conv", []string{"x", w9(b)}, onnx.IntsAttr("pads", 1, 1, 0, 0))}
		}, "(Conv): pads top 1 left 1 bottom 0 right 0"},
		{"conv weights not constant", func(b *onnx.Builder) []string {
			return []string{b.Op("Conv", []string{"x", "x"})}
		}, "(Conv): the weights must be a constant"},
		{"grouped conv_transpose", func(b *onnx.Builder) []string {
			return []string{b.Op("ConvTranspose", []string{"x", w9(b)}, onnx.IntAttr("group", 2))}
		}, "(ConvTranspose): group 2"},
		{"gdn", func(b *onnx.Builder) []string {
			n := b.Op("Conv", []string{b.Op("Mul", []string{"x", "x"}), b.Floats([]float32{0.5}, 1, 1, 1, 1), b.Floats([]float32{1}, 1)})
			return []string{b.Op("Div", []string{"x", b.Op("Sqrt", []string{n})})}
		}, "(Div): this is GDN"},
		{"gdn by rsqrt", func(b *onnx.Builder) []string {
			n := b.Op("Conv", []string{b.Op("Pow", []string{"x", b.Floats([]float32{2})}), b.Floats([]float32{0.5}, 1, 1, 1, 1), b.Floats([]float32{1}, 1)})
			return []string{b.Op("Mul", []string{"x", b.Op("Reciprocal", []string{b.Op("Sqrt", []string{n})})})}
		}, "(Mul): this is GDN"},
		{"square used elsewhere", func(b *onnx.Builder) []string {
			return []string{b.Op("Relu", []string{b.Op("Mul", []string{"x", "x"})})}
		}, "(Relu): reads the partial value of node"},
		{"square as output", func(b *onnx.Builder) []string { return []string{b.Op("Mul", []string{"x", "x"})} }, "(Mul): its value is a graph output"},
		{"pow 3", func(b *onnx.Builder) []string {
			return []string{b.Op("Pow", []string{"x", b.Floats([]float32{3})})}
		}, "(Pow): Pow maps only as x²"},
		{"sqrt alone", func(b *onnx.Builder) []string { return []string{b.Op("Sqrt", []string{"x"})} }, "(Sqrt): a square root maps only"},
		{"dcr", func(b *onnx.Builder) []string {
			return []string{b.Op("DepthToSpace", []string{"x"}, onnx.IntAttr("blocksize", 1))}
		}, "(DepthToSpace): mode DCR folds only into a conv"},
		{"resize ×3", func(b *onnx.Builder) []string {
			return []string{b.Op("Resize", []string{"x", "", b.Floats([]float32{1, 1, 3, 3}, 4)}, onnx.StringAttr("mode", "nearest"))}
		}, "(Resize): the importer maps scales [1, 1, 2, 2]"},
		{"resize linear", func(b *onnx.Builder) []string {
			return []string{b.Op("Resize", []string{"x", "", b.Floats([]float32{1, 1, 2, 2}, 4)}, onnx.StringAttr("mode", "linear"))}
		}, "(Resize): mode linear"},
		{"resize ceil", func(b *onnx.Builder) []string {
			return []string{b.Op("Resize", []string{"x", "", b.Floats([]float32{1, 1, 2, 2}, 4)}, onnx.StringAttr("nearest_mode", "ceil"))}
		}, "does not repeat each pixel twice"},
		{"reflect pad", func(b *onnx.Builder) []string {
			return []string{b.Op("Pad", []string{"x", b.Ints([]int64{0, 0, 1, 1, 0, 0, 1, 1}, 8)}, onnx.StringAttr("mode", "reflect"))}
		}, "(Pad): mode reflect"},
		{"pad alone", func(b *onnx.Builder) []string {
			return []string{b.Op("Relu", []string{b.Op("Pad", []string{"x", b.Ints([]int64{0, 0, 1, 1, 0, 0, 1, 1}, 8)})})}
		}, "(Relu): reads the partial value of node"},
		{"spatial slice", func(b *onnx.Builder) []string {
			return []string{b.Op("Slice", []string{"x", b.Ints([]int64{0}, 1), b.Ints([]int64{1}, 1), b.Ints([]int64{2}, 1)})}
		}, "(Slice): the importer maps a Slice of the channel axis"},
		{"mul of activations", func(b *onnx.Builder) []string {
			return []string{b.Op("Mul", []string{"x", b.Op("Relu", []string{"x"})})}
		}, "(Mul): Mul of these operands"},
		{"concat on H", func(b *onnx.Builder) []string {
			return []string{b.Op("Concat", []string{"x", "x"}, onnx.IntAttr("axis", 2))}
		}, "(Concat): axis 2"},
		{"other domain", func(b *onnx.Builder) []string {
			n := b.Node("Relu", []string{"x"}, []string{"y"})
			n.Domain = "com.example"
			return []string{"y"}
		}, `(Relu): domain "com.example"`},
	} {
		b := onnx.NewBuilder("r", 13)
		b.Input("x", onnx.Float, 1, 1, -1, -1)
		for _, o := range c.build(b) {
			b.Output(o, onnx.Float)
		}
		model, _ := b.Bytes()
		_, err := Import(model, []Latent{{Name: "in", T: one(1, 2)}}, Options{Acts: 16, Weights: 8, Profile: certify.Acc32})
		if err == nil || !strings.HasPrefix(err.Error(), "model_mismatch: node #") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestProfileMissed: a LeakyRelu whose slope needs a multiplier past i32
// imports at acc64 and is refused at acc32 (its product v·a passes i32,
// §7.1), naming the certificate's first failure.
func TestProfileMissed(t *testing.T) {
	b := onnx.NewBuilder("steep", 13)
	b.Input("x", onnx.Float, 1, 1, -1, -1)
	b.Node("LeakyRelu", []string{"x"}, []string{"y"}, onnx.FloatAttr("alpha", 40000))
	b.Output("y", onnx.Float)
	model, _ := b.Bytes()
	cal := []Latent{{Name: "in", T: one(-1, 2)}}
	if _, err := Import(model, cal, Options{Acts: 16, Weights: 8, Profile: certify.Acc64}); err != nil {
		t.Fatalf("acc64: %v", err)
	}
	_, err := Import(model, cal, Options{Acts: 16, Weights: 8, Profile: certify.Acc32})
	if err == nil || !strings.Contains(err.Error(), "model_mismatch: the imported graph does not meet acc32") || !strings.Contains(err.Error(), `node 0: leaky.p`) {
		t.Fatalf("acc32: %v", err)
	}
}

// TestModelRefusals: what the importer refuses about a model as a whole.
func TestModelRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		model func() []byte
		want  string
	}{
		{"bad bytes", func() []byte { return []byte{0x3a, 0xff} }, "model_mismatch: onnx: "},
		{"opset 12", func() []byte {
			b := onnx.NewBuilder("o", 12)
			b.Input("x", onnx.Float, 1, 1, -1, -1)
			b.Node("Relu", []string{"x"}, []string{"y"})
			b.Output("y", onnx.Float)
			m, _ := b.Bytes()
			return m
		}, "model_mismatch: opset 12"},
		{"two inputs", func() []byte {
			b := onnx.NewBuilder("o", 13)
			b.Input("x", onnx.Float, 1, 1, -1, -1)
			b.Input("z", onnx.Float, 1, 1, -1, -1)
			b.Node("Add", []string{"x", "z"}, []string{"y"})
			b.Output("y", onnx.Float)
			m, _ := b.Bytes()
			return m
		}, "model_mismatch: the graph has 2 inputs"},
	} {
		_, err := Import(c.model(), []Latent{{Name: "in", T: one(1, 2)}}, Options{Acts: 16, Weights: 8, Profile: certify.Acc32})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzImport: any bytes, as a model, import or are refused, never panic.
// The seeds are the op cases' models.
func FuzzImport(f *testing.F) {
	for _, c := range opCases() {
		b := onnx.NewBuilder(c.name, 13)
		b.Input("x", onnx.Float, 1, int64(c.in.Shape.C), -1, -1)
		for _, o := range c.build(b) {
			b.Output(o, onnx.Float)
		}
		m, err := b.Bytes()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(m, int64(c.in.Shape.C))
	}
	f.Fuzz(func(t *testing.T, model []byte, c int64) {
		if c < 1 || c > 8 {
			return
		}
		in := tens(int(c), 2, 2)
		for i := range in.Data {
			in.Data[i] = int64(i%5) - 2
		}
		r, err := Import(model, []Latent{{Name: "in", T: in}}, Options{Acts: 16, Weights: 8, Profile: certify.Acc32})
		if err != nil {
			return
		}
		if !r.Cert.Verdict.Acc32 {
			t.Fatal("an import that does not meet acc32 was returned")
		}
	})
}
