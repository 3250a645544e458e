package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Case is one benchmark: a graph, its inputs, and the work one decode does.
type Case struct {
	Op    string // operator family ("conv3x3", "graph_synth4", ...)
	Size  int    // the side of the input plane, the sweep variable
	Graph []byte
	Input []*tensor.T
	// Work is the multiply-accumulates (Unit "MAC") or output elements
	// (Unit "elem") of one decode.
	Work int64
	Unit string
	// Tag, when set, names the case in place of its size: the held-out
	// picture an imported case decodes.
	Tag string
	// Float, when set, is the float model the case was imported from,
	// which the float peer runs in place of a float twin.
	Float *floatModel
}

// Name is the case's id, e.g. "conv3x3_128" or "tinycodec_chelsea".
func (c *Case) Name() string {
	if c.Tag != "" {
		return c.Op + "_" + c.Tag
	}
	return fmt.Sprintf("%s_%d", c.Op, c.Size)
}

// i8 is the range every benchmark input and weight is drawn from: the i8
// data of a learned codec's synthesis network.
const i8lo, i8hi = -128, 127

func rnd(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func i8s(r *rand.Rand, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(r.IntN(256)) + i8lo
	}
	return v
}

func input(r *rand.Rand, c, h, w int) *tensor.T {
	return &tensor.T{Shape: tensor.Shape{C: c, H: h, W: w}, Data: i8s(r, c*h*w)}
}

// builder assembles a one-input graph whose input is i8-checked and whose
// every intermediate is clamped to i8, so its certificate meets acc32.
type builder struct {
	g *whg1.Graph
}

func newBuilder(c, h, w int) *builder {
	return &builder{g: &whg1.Graph{
		Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: uint32(h), MaxW: uint32(w)}},
		Tensors: []whg1.Tensor{{Channels: uint32(c), Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: i8lo, Hi: i8hi}},
	}}
}

// op appends an operator reading the given tensors and producing one tensor
// of c channels, clamped to i8 unless derived is set. It returns the new
// tensor's index.
func (b *builder) op(code whg1.Opcode, params any, c int, derived bool, in ...uint32) uint32 {
	t := whg1.Tensor{Channels: uint32(c), Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: i8lo, Hi: i8hi}
	if derived {
		t = whg1.Tensor{Channels: uint32(c), Exponent: whg1.NoExponent}
	}
	b.g.Tensors = append(b.g.Tensors, t)
	out := uint32(len(b.g.Tensors) - 1)
	b.g.Ops = append(b.g.Ops, whg1.Op{Code: code, In: in, Out: []uint32{out}, Params: params})
	return out
}

func (b *builder) bytes(outs ...uint32) []byte {
	b.g.Outputs = outs
	return whg1.Encode(b.g)
}

// shiftRQ is an rq with no multiplier, one shift and floor rounding.
func shiftRQ(s uint8) whg1.RQ {
	return whg1.RQ{Round: whg1.Floor, SKind: 1, Shift: []uint8{s}}
}

func convCase(op string, r *rand.Rand, cin, cout, k, groups, side int) *Case {
	b := newBuilder(cin, side, side)
	p := uint32(k / 2)
	w := i8s(r, cout*(cin/groups)*k*k)
	t := b.op(whg1.OpConv, &whg1.Conv{Cout: uint32(cout), KH: uint32(k), KW: uint32(k), SH: 1, SW: 1,
		PH: p, PW: p, Groups: uint32(groups), WBytes: 1, RQ: shiftRQ(8), W: w}, cout, false, 0)
	return &Case{Op: op, Size: side, Graph: b.bytes(t), Input: []*tensor.T{input(r, cin, side, side)},
		Work: int64(cout) * int64(side*side) * int64(cin/groups*k*k), Unit: "MAC"}
}

// convTParams is a 3×3 stride-2 transposed convolution that doubles each side.
func convTParams(r *rand.Rand, cin, cout int) *whg1.ConvT {
	return &whg1.ConvT{Cout: uint32(cout), KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		WBytes: 1, RQ: shiftRQ(8), W: i8s(r, cin*cout*9)}
}

// igdnParams is an igdn with small positive γ and β, as a trained synthesis
// transform has after quantisation.
func igdnParams(r *rand.Rand, c int) *whg1.IGDN {
	g := make([]int64, c*c)
	for i := range g {
		g[i] = int64(r.IntN(16))
	}
	beta := make([]int64, c)
	for i := range beta {
		beta[i] = 1 << 12
	}
	return &whg1.IGDN{GF: 8, Frac: 6, GBytes: 4, Gamma: g, Beta: beta}
}

// elemCase is an elementwise-cost case with nIn i8 inputs of c channels.
func elemCase(op string, side, c, nIn int, build func(b *builder) uint32) *Case {
	b := newBuilder(c, side, side)
	r := rnd(uint64(side))
	var ins []*tensor.T
	for range nIn {
		ins = append(ins, input(r, c, side, side))
	}
	t := build(b)
	return &Case{Op: op, Size: side, Graph: b.bytes(t), Input: ins, Work: int64(c * side * side), Unit: "elem"}
}

// addInput declares a second i8-checked input like input 0.
func (b *builder) addInput() uint32 {
	t0 := b.g.Tensors[0]
	b.g.Tensors = append(b.g.Tensors, t0)
	idx := uint32(len(b.g.Tensors) - 1)
	in0 := b.g.Inputs[0]
	in0.Tensor = idx
	b.g.Inputs = append(b.g.Inputs, in0)
	return idx
}

// Cases builds the sweep's cases, family by family in DefaultOps' order
// and side by side, each from its own seed so that a family's data do not
// depend on which others run. A case whose input or output would pass
// §3's 2^26 elements per tensor is left out (conv_transpose doubles each
// side, the synthesis network multiplies it by 16). The imported network
// comes last; an error is its import's.
func (s Sweep) Cases() ([]*Case, error) {
	var cs []*Case
	for _, side := range s.Sides {
		for i, op := range opFamilies {
			if !s.Wants(op.name) || !op.fits(side) {
				continue
			}
			cs = append(cs, op.build(rnd(uint64(side)<<8|uint64(i)), side))
		}
	}
	if s.Wants("graph_synth4") {
		for _, side := range s.SynthSides {
			if synthFits(side) {
				cs = append(cs, synthCase(side))
			}
		}
	}
	if s.Wants("bmshj2018") {
		for _, h := range s.BmshjSides {
			if bmshjFits(h) {
				cs = append(cs, bmshjCase(h))
			}
		}
	}
	if s.Wants(tinycodecOp) {
		tc, err := tinycodecCases(s.TinycodecCrop)
		if err != nil {
			return nil, err
		}
		cs = append(cs, tc...)
	}
	return cs, nil
}

// maxElems is §3's cap on every tensor's elements.
const maxElems = 1 << 26

// opFamily is one operator family of the side sweep: how to build its
// case at a side, and the side of its output plane.
type opFamily struct {
	name  string
	build func(r *rand.Rand, side int) *Case
	// outSide is the output plane's side for an input side.
	outSide func(side int) int
}

func same(side int) int { return side }

// fits reports whether the family's output plane of 64 channels at an
// input side keeps to §3's 2^26 elements (the input is never larger).
func (f opFamily) fits(side int) bool { return 64*f.outSide(side)*f.outSide(side) <= maxElems }

// synthFits is fits for the synthesis network, whose output side is 16
// times its input's.
func synthFits(side int) bool { return 64*(16*side)*(16*side) <= maxElems }

var opFamilies = []opFamily{
	{"conv1x1", func(r *rand.Rand, s int) *Case { return convCase("conv1x1", r, 64, 64, 1, 1, s) }, same},
	{"conv3x3", func(r *rand.Rand, s int) *Case { return convCase("conv3x3", r, 64, 64, 3, 1, s) }, same},
	{"conv3x3_raw", func(r *rand.Rand, s int) *Case { return newPeerConv(s, 0).benchCase() }, same},
	{"dwconv3x3", func(r *rand.Rand, s int) *Case { return convCase("dwconv3x3", r, 64, 64, 3, 64, s) }, same},
	{"convT3x3s2", func(r *rand.Rand, s int) *Case {
		b := newBuilder(64, s, s)
		t := b.op(whg1.OpConvTranspose, convTParams(r, 64, 64), 64, false, 0)
		return &Case{Op: "convT3x3s2", Size: s, Graph: b.bytes(t),
			Input: []*tensor.T{input(r, 64, s, s)}, Work: int64(64*64*9) * int64(s*s), Unit: "MAC"}
	}, func(s int) int { return 2 * s }},
	{"igdn", func(_ *rand.Rand, s int) *Case {
		return elemCase("igdn", s, 64, 1, func(b *builder) uint32 {
			return b.op(whg1.OpIGDN, igdnParams(rnd(1), 64), 64, false, 0)
		})
	}, same},
	{"rescale", func(_ *rand.Rand, s int) *Case {
		return elemCase("rescale", s, 64, 1, func(b *builder) uint32 {
			return b.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 1, MBytes: 4, Mult: []int64{181}, SKind: 1, Shift: []uint8{8}}}, 64, false, 0)
		})
	}, same},
	{"mul", func(_ *rand.Rand, s int) *Case {
		return elemCase("mul", s, 64, 2, func(b *builder) uint32 {
			return b.op(whg1.OpMul, &whg1.Rescale{RQ: shiftRQ(7)}, 64, false, 0, b.addInput())
		})
	}, same},
	{"add", func(_ *rand.Rand, s int) *Case {
		return elemCase("add", s, 64, 2, func(b *builder) uint32 {
			return b.op(whg1.OpAdd, nil, 64, true, 0, b.addInput())
		})
	}, same},
	{"lut16", func(_ *rand.Rand, s int) *Case {
		return elemCase("lut16", s, 64, 1, func(b *builder) uint32 {
			tab := make([]int16, 65536)
			for i := 1; i < len(tab); i++ { // §5.6: T[0] = 0
				tab[i] = int16((i - 32768) / 3)
			}
			return b.op(whg1.OpLut16, &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: tab}, 64, true, 0)
		})
	}, same},
	{"gram_apply", func(_ *rand.Rand, s int) *Case {
		return elemCase("gram_apply", s, 64, 1, func(b *builder) uint32 {
			c := &whg1.Contraction{Groups: 8, RQ: shiftRQ(12)}
			a := b.op(whg1.OpGram, c, 64, false, 0, 0)
			return b.op(whg1.OpApply, c, 64, false, a, 0)
		})
	}, same},
}

// synthCase is a 4-layer synthesis network, conv_transpose (3×3, stride 2)
// then igdn then relu per layer, 64 channels, from s×s to 16s×16s.
func synthCase(s int) *Case {
	r := rnd(4)
	b := newBuilder(64, s, s)
	t := uint32(0)
	var macs int64
	side := s
	for range 4 {
		t = b.op(whg1.OpConvTranspose, convTParams(r, 64, 64), 64, false, t)
		macs += int64(64*64*9) * int64(side*side)
		side *= 2
		t = b.op(whg1.OpIGDN, igdnParams(r, 64), 64, false, t)
		t = b.op(whg1.OpRelu, nil, 64, false, t)
	}
	return &Case{Op: "graph_synth4", Size: s, Graph: b.bytes(t), Input: []*tensor.T{input(r, 64, s, s)}, Work: macs, Unit: "MAC"}
}
