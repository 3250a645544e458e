package cpuref

import (
	"fmt"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// load encodes g, parses it back (so every graph here passes the load
// checks) and loads it on the CPU fabric.
func load(t *testing.T, g *whg1.Graph) (*whg1.Graph, *Program) {
	t.Helper()
	pg, err := whg1.Parse(whg1.Encode(g))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := Load(pg)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return pg, p
}

func rec(c uint32, pol whg1.Policy, lo, hi int64) whg1.Tensor {
	return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: pol, Lo: lo, Hi: hi}
}

func derived(c uint32) whg1.Tensor { return rec(c, whg1.Derived, 0, 0) }

// TestDecodePolicies: §4 run step 4 with check and clamp policies. The graph
// is t1 = rescale(t0)·3 (check [−10, 10]), t2 = relu(t1); outputs t2, t1.
func TestDecodePolicies(t *testing.T) {
	g := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0}},
		Outputs: []uint32{2, 1},
		Tensors: []whg1.Tensor{rec(1, whg1.Check, -100, 100), rec(1, whg1.Check, -10, 10), derived(1)},
		Ops: []whg1.Op{
			{Code: whg1.OpRescale, In: []uint32{0}, Out: []uint32{1},
				Params: &whg1.Rescale{RQ: whg1.RQ{MKind: 1, SKind: 1, Mult: []int64{3}, Shift: []uint8{0}}}},
			{Code: whg1.OpRelu, In: []uint32{1}, Out: []uint32{2}},
		},
	}
	_, p := load(t, g)
	// (1, −2, 3) → t1 = (3, −6, 9), t2 = (3, 0, 9).
	out, err := p.Decode([]*tensor.T{tn(1, 1, 3, 1, -2, 3)}, nil)
	noErr(t, "decode", err)
	expect(t, "relu output", out[0], 3, 0, 9)
	expect(t, "rescale output", out[1], 3, -6, 9)
	// (1, −4, 3): t1 holds −12, outside check [−10, 10]: refused, no output.
	out, err = p.Decode([]*tensor.T{tn(1, 1, 3, 1, -4, 3)}, nil)
	expectRefusal(t, "check on t1", err, refusal.FieldRange)
	if out != nil {
		t.Errorf("a refused decode returned %v", out)
	}
	// An input outside its own check range [−100, 100].
	_, err = p.Decode([]*tensor.T{tn(1, 1, 3, 1, 200, 3)}, nil)
	expectRefusal(t, "check on the input", err, refusal.FieldRange)
	// Step 1 before step 4: a wrong channel count is model_mismatch.
	_, err = p.Decode([]*tensor.T{tn(2, 1, 1, 500, 500)}, nil)
	expectRefusal(t, "channels", err, refusal.ModelMismatch)
	// Data that does not match its shape.
	_, err = p.Decode([]*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 3}, Data: []int64{1}}}, nil)
	expectRefusal(t, "data length", err, refusal.ModelMismatch)

	// A clamp input: (−9, 9) → (−5, 5) → ·3 → (−15, 15) in check [−15, 15]
	// → relu (0, 15). The caller's tensor is not modified.
	g.Tensors[0] = rec(1, whg1.Clamp, -5, 5)
	g.Tensors[1] = rec(1, whg1.Check, -15, 15)
	_, p = load(t, g)
	in := tn(1, 1, 2, -9, 9)
	out, err = p.Decode([]*tensor.T{in}, nil)
	noErr(t, "decode", err)
	expect(t, "clamped input", out[0], 0, 15)
	expect(t, "the caller's input", in, -9, 9)
}

// TestSequenceThroughCPU: §10.3 state carried across three decodes, the
// middle one refused. t2 = add(t0, t1) with t1 a state input (init 5, fed
// by output 0) and t2 check [−50, 50].
func TestSequenceThroughCPU(t *testing.T) {
	g := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0}, {Tensor: 1, Kind: whg1.StateInput, Src: 0, Init: 5}},
		Outputs: []uint32{2},
		Tensors: []whg1.Tensor{rec(1, whg1.Check, -1000, 1000), rec(1, whg1.Check, -1000, 1000), rec(1, whg1.Check, -50, 50)},
		Ops:     []whg1.Op{{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}}},
	}
	pg, p := load(t, g)
	s := whg1.NewSequence(pg, p)
	// 1: state (5, 5) + (1, 2) = (6, 7); the state becomes (6, 7).
	out, err := s.Decode([]*tensor.T{tn(1, 1, 2, 1, 2)}, nil)
	noErr(t, "decode 1", err)
	expect(t, "decode 1", out[0], 6, 7)
	// 2: (6, 7) + (100, 0) = 106 > 50: refused; the state stays (6, 7).
	out, err = s.Decode([]*tensor.T{tn(1, 1, 2, 100, 0)}, nil)
	expectRefusal(t, "decode 2", err, refusal.FieldRange)
	if out != nil {
		t.Errorf("decode 2 refused yet returned %v", out)
	}
	// 3: (6, 7) + (−1, 3) = (5, 10).
	out, err = s.Decode([]*tensor.T{tn(1, 1, 2, -1, 3)}, nil)
	noErr(t, "decode 3", err)
	expect(t, "decode 3", out[0], 5, 10)
}

// opCase is a one-operator graph: its inputs (every one a check input of
// the full i64 range, sizes declared as the inputs' own), its parameters,
// its outputs' channel counts and the expected outputs, all worked by hand
// in the kernel tests of this package. It checks that Decode binds each
// opcode to its kernel and plans its shapes.
type opCase struct {
	code    whg1.Opcode
	params  any
	in      []*tensor.T
	outC    []uint32
	scalars []whg1.Scalar
	values  []int64
	want    [][]int64
}

func TestEveryOpThroughDecode(t *testing.T) {
	lut := &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}
	lut.T[32768-1], lut.T[32768+2], lut.T[65535], lut.T[1] = -5, 7, 100, -100
	order := [4]uint8{3, 0, 2, 1}
	cases := []opCase{
		{code: whg1.OpConv, params: &whg1.Conv{Cout: 2, KH: 2, KW: 2, SH: 2, SW: 2, PH: 1, PW: 1, Groups: 2,
			RQ: whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{1, -1}}, W: []int64{1, 2, 3, 4, -1, 0, 0, 1}},
			in:   []*tensor.T{tn(2, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9)},
			outC: []uint32{2}, want: [][]int64{{5, 19, 37, 78, -2, -4, -8, -5}}},
		{code: whg1.OpRescale, params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PreBias, MKind: 2, SKind: 2,
			Mult: []int64{3, -2}, Shift: []uint8{1, 0}, BiasV: []int64{1, 5}}},
			in: []*tensor.T{tn(2, 1, 2, 0, 2, -1, 4)}, outC: []uint32{2}, want: [][]int64{{2, 4, -8, -18}}},
		{code: whg1.OpChscale, params: &whg1.Chscale{Scalar: 0, NRows: 2, Round: whg1.HalfUp, Shift: 2, M: []int64{3, 5, -7, 11}},
			in: []*tensor.T{tn(2, 1, 2, 1, -2, 3, -1)}, outC: []uint32{2},
			scalars: []whg1.Scalar{{Lo: 0, Hi: 1}}, values: []int64{1}, want: [][]int64{{-2, 4, 8, -3}}},
		{code: whg1.OpLut16, params: lut, in: []*tensor.T{tn(1, 1, 5, -1, 2, 0, 32767, -32767)},
			outC: []uint32{1}, want: [][]int64{{-5, 7, 0, 100, -100}}},
		{code: whg1.OpAdd, in: []*tensor.T{tn(1, 1, 2, 1, -2), tn(1, 1, 2, 2, -3)}, outC: []uint32{1}, want: [][]int64{{3, -5}}},
		{code: whg1.OpConcat, in: []*tensor.T{tn(1, 1, 2, 1, 2), tn(2, 1, 2, 3, 4, 5, 6)}, outC: []uint32{3}, want: [][]int64{{1, 2, 3, 4, 5, 6}}},
		{code: whg1.OpChunkAdd, in: []*tensor.T{tn(4, 1, 2, 1, 2, 3, 4, 10, 20, -30, -40)}, outC: []uint32{2}, want: [][]int64{{11, 22, -27, -36}}},
		{code: whg1.OpSplit, params: &whg1.Split{Start: 1, Count: 2}, in: []*tensor.T{tn(3, 1, 1, 7, 8, 9)}, outC: []uint32{2}, want: [][]int64{{8, 9}}},
		{code: whg1.OpPixelShuffle, params: &whg1.Factor{N: 2}, in: []*tensor.T{tn(4, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7)},
			outC: []uint32{1}, want: [][]int64{{0, 2, 1, 3, 4, 6, 5, 7}}},
		{code: whg1.OpPixelUnshuffle, params: &whg1.Factor{N: 2}, in: []*tensor.T{tn(1, 2, 4, 0, 2, 1, 3, 4, 6, 5, 7)},
			outC: []uint32{4}, want: [][]int64{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{code: whg1.OpClamp, params: &whg1.ClampParams{Lo: -2, Hi: 3}, in: []*tensor.T{tn(1, 1, 5, -5, -2, 0, 3, 9)},
			outC: []uint32{1}, want: [][]int64{{-2, -2, 0, 3, 3}}},
		{code: whg1.OpRelu, in: []*tensor.T{tn(1, 1, 3, -1, 0, 5)}, outC: []uint32{1}, want: [][]int64{{0, 0, 5}}},
		{code: whg1.OpLeaky, params: &whg1.Leaky{A: 3, F: 2}, in: []*tensor.T{tn(1, 1, 6, -1, -2, -4, -5, 0, 5)},
			outC: []uint32{1}, want: [][]int64{{-1, -2, -3, -4, 0, 5}}},
		{code: whg1.OpPadRep, params: &whg1.Factor{N: 3}, in: []*tensor.T{tn(1, 2, 2, 1, 2, 3, 4)},
			outC: []uint32{1}, want: [][]int64{{1, 2, 2, 3, 4, 4, 3, 4, 4}}},
		{code: whg1.OpCropTo, in: []*tensor.T{tn(1, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9), tn(1, 2, 1, 0, 0)},
			outC: []uint32{1}, want: [][]int64{{1, 4}}},
		{code: whg1.OpMul, params: &whg1.Rescale{RQ: whg1.RQ{MKind: 2, SKind: 1, Mult: []int64{1, 3}, Shift: []uint8{1}}},
			in: []*tensor.T{tn(2, 1, 2, 3, -5, 7, 2), tn(1, 1, 2, 4, 3)}, outC: []uint32{2}, want: [][]int64{{6, -8, 42, 9}}},
		{code: whg1.OpConvTranspose, params: &whg1.ConvT{Cout: 1, KH: 1, KW: 3, SH: 1, SW: 2, OPW: 2,
			RQ: whg1.RQ{Bias: whg1.PostBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{3}}, W: []int64{1, 10, 100}},
			in: []*tensor.T{tn(1, 1, 2, 1, 2)}, outC: []uint32{1}, want: [][]int64{{4, 13, 105, 23, 203, 3, 3}}},
		{code: whg1.OpIGDN, params: &whg1.IGDN{GF: 1, Frac: 0, Gamma: []int64{1, 1, -1, 3}, Beta: []int64{3, 0}},
			in: []*tensor.T{tn(2, 1, 2, 1, -3, 1, 2)}, outC: []uint32{2}, want: [][]int64{{1, -9, 0, 2}}},
		{code: whg1.OpAbs, in: []*tensor.T{tn(1, 1, 3, -7, 0, 7)}, outC: []uint32{1}, want: [][]int64{{7, 0, 7}}},
		// crop with a scalar y0 = 1 and constants x0 = 1, h = 2, w = 1: (5, 8).
		{code: whg1.OpCrop, params: &whg1.Crop{Y0: whg1.Operand{Scalar: true, Value: 0}, X0: whg1.Operand{Value: 1},
			H: whg1.Operand{Value: 2}, W: whg1.Operand{Value: 1}},
			in: []*tensor.T{tn(1, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9)}, outC: []uint32{1},
			scalars: []whg1.Scalar{{Lo: -1, Hi: 2}}, values: []int64{1}, want: [][]int64{{5, 8}}},
		{code: whg1.OpSubposSplit, params: &whg1.Subpos{Order: order}, in: []*tensor.T{tn(1, 2, 4, 0, 1, 2, 3, 4, 5, 6, 7)},
			outC: []uint32{1, 1, 1, 1}, want: [][]int64{{5, 7}, {0, 2}, {4, 6}, {1, 3}}},
		{code: whg1.OpSubposMerge, params: &whg1.Subpos{Order: order},
			in:   []*tensor.T{tn(1, 1, 2, 5, 7), tn(1, 1, 2, 0, 2), tn(1, 1, 2, 4, 6), tn(1, 1, 2, 1, 3)},
			outC: []uint32{1}, want: [][]int64{{0, 1, 2, 3, 4, 5, 6, 7}}},
		// fill from scalar 0 = −9, two channels from the output record.
		{code: whg1.OpFill, params: &whg1.Fill{Scalar: true, Value: 0}, in: []*tensor.T{tn(1, 1, 2, 0, 0)},
			outC: []uint32{2}, scalars: []whg1.Scalar{{Lo: -10, Hi: 10}}, values: []int64{-9}, want: [][]int64{{-9, -9, -9, -9}}},
		{code: whg1.OpLayerNormC, params: &whg1.LayerNorm{Eps: 1, Gamma: []int64{32768, -65536}, Beta: []int64{1, 2}},
			in: []*tensor.T{tn(2, 1, 3, 0, 0, 0, 1, -1, 200)}, outC: []uint32{2},
			want: [][]int64{{-32767, 32769, -32767, 2, 2, -65533}}},
		{code: whg1.OpL2Norm, params: &whg1.L2Norm{Eps: 1}, in: []*tensor.T{tn(2, 1, 2, -3, 4, 0, 0)},
			outC: []uint32{2}, want: [][]int64{{-39322, 52428, 0, 0}}},
		{code: whg1.OpSoftmax, in: []*tensor.T{tn(1, 2, 2, 5, 5-45426, 1<<63-1, -1<<63)},
			outC: []uint32{1}, want: [][]int64{{43691, 21845, 65536, 0}}},
		{code: whg1.OpSigmoid, in: []*tensor.T{tn(1, 1, 3, 0, 45426, -45426)}, outC: []uint32{1}, want: [][]int64{{32763, 43687, 21848}}},
		{code: whg1.OpElu, params: &whg1.Elu{Alpha: 1 << 16}, in: []*tensor.T{tn(1, 1, 3, 5, -45426, 0)},
			outC: []uint32{1}, want: [][]int64{{5, -32760, 17}}},
		{code: whg1.OpGram, params: contraction(1, 1, whg1.HalfUp), in: []*tensor.T{tn(2, 1, 2, 1, 2, 3, -4), tn(2, 1, 2, 5, 6, -7, 8)},
			outC: []uint32{2}, want: [][]int64{{9, 5, -4, -26}}},
		{code: whg1.OpApply, params: contraction(1, 1, whg1.HalfEven), in: []*tensor.T{tn(2, 1, 2, 1, 2, 3, -4), tn(2, 1, 2, 5, 6, -7, 8)},
			outC: []uint32{2}, want: [][]int64{{-4, 11, 22, -7}}},
	}
	seen := map[whg1.Opcode]bool{}
	for _, c := range cases {
		seen[c.code] = true
		g := &whg1.Graph{Scalars: c.scalars}
		op := whg1.Op{Code: c.code, Params: c.params}
		for i, in := range c.in {
			g.Inputs = append(g.Inputs, whg1.Input{Tensor: uint32(i), MaxH: uint32(in.Shape.H), MaxW: uint32(in.Shape.W)})
			g.Tensors = append(g.Tensors, rec(uint32(in.Shape.C), whg1.Check, -1<<63, 1<<63-1))
			op.In = append(op.In, uint32(i))
		}
		for _, ch := range c.outC {
			op.Out = append(op.Out, uint32(len(g.Tensors)))
			g.Outputs = append(g.Outputs, uint32(len(g.Tensors)))
			g.Tensors = append(g.Tensors, derived(ch))
		}
		g.Ops = []whg1.Op{op}
		_, p := load(t, g)
		// Then again with every output's buffer taken from the pool
		// full of garbage: a step that writesAll must overwrite it, and
		// the pool must clear it for any other.
		for _, seeded := range []bool{false, true} {
			if seeded {
				for k := range c.want {
					seedPool(p, len(c.want[k]))
				}
			}
			out, err := p.Decode(c.in, c.values)
			noErr(t, c.code.String(), err)
			for k, w := range c.want {
				if !slices.Equal(out[k].Data, w) {
					t.Errorf("%v output %d (pool seeded %v) = %v, want %v", c.code, k, seeded, out[k].Data, w)
				}
			}
		}
	}
	if len(seen) != 30 {
		t.Errorf("%d of the 30 operators covered", len(seen))
	}
}

var _ whg1.Decoder = (*Program)(nil)

func TestIdentity(t *testing.T) {
	id := Identity()
	if id["fabric"] != "cpu" || id["go"] == "" || id["goos"] == "" || id["goarch"] == "" {
		t.Errorf("Identity() = %v", id)
	}
	if p := (&Program{}).Profile(); p != certify.Acc64 {
		t.Errorf("Profile() = %q", p)
	}
}

// TestConcurrentDecodes runs one Program from several goroutines at once
// (run it with -race): each decode's result is the 3×3 convolution of a
// constant plane, worked by hand: with every weight 1 and no padding, each
// output is 9·v, floored after shift 1: ⌊9v / 2⌋.
func TestConcurrentDecodes(t *testing.T) {
	w := make([]int64, 9)
	for i := range w {
		w[i] = 1
	}
	g := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0}},
		Outputs: []uint32{1},
		Tensors: []whg1.Tensor{rec(1, whg1.Check, -1000, 1000), derived(1)},
		Ops: []whg1.Op{{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{
			Cout: 1, KH: 3, KW: 3, SH: 1, SW: 1, Groups: 1, RQ: whg1.RQ{SKind: 1, Shift: []uint8{1}}, W: w}}},
	}
	_, p := load(t, g)
	errs := make(chan error, 8)
	for v := range int64(8) {
		go func() {
			in := tensor.New(tensor.Shape{C: 1, H: 34, W: 34})
			for i := range in.Data {
				in.Data[i] = v - 3
			}
			out, err := p.Decode([]*tensor.T{in}, nil)
			if err == nil {
				want := (9 * (v - 3)) >> 1
				for _, y := range out[0].Data {
					if y != want {
						err = fmt.Errorf("decode %d: %d, want %d", v, y, want)
						break
					}
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
