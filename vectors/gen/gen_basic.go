package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genBasics) }

// basic is one ordinary instance of an operator, whose input 0's range the
// generic cases vary: the shapes of the data inputs, the records of the
// inputs after input 0, the parameters, the outputs, declared sizes (0 for
// none) and scalars.
type basic struct {
	shapes  []tensor.Shape
	others  []whg1.Tensor
	params  any
	outs    []whg1.Tensor
	h, w    uint32
	scalars []whg1.Scalar
	values  []int64 // the scalars' values at every decode
}

// graph is the basic instance with input 0 recorded as in0.
func (b *basic) graph(code whg1.Opcode, in0 whg1.Tensor) *whg1.Graph {
	gr := one(code, b.params, append([]whg1.Tensor{in0}, b.others...), b.outs, b.h, b.w)
	gr.Scalars = b.scalars
	return gr
}

// inputs are the data inputs of one decode: input 0 is x0, the others are
// drawn from their ranges.
func (b *basic) inputs(r *rand.Rand, x0 *tensor.T) []*tensor.T {
	ins := []*tensor.T{x0}
	for i, rec := range b.others {
		s := b.shapes[i+1]
		ins = append(ins, rnd(r, s.C, s.H, s.W, rec.Lo, rec.Hi))
	}
	return ins
}

func sh(c, h, w int) tensor.Shape { return tensor.Shape{C: c, H: h, W: w} }

// rqPlain is a floor rq with no multiplier or bias and one shift.
func rqPlain(s uint8) whg1.RQ { return whg1.RQ{SKind: 1, Shift: []uint8{s}} }

// basics gives each of the 30 operators its basic instance. lut16 is left
// out: its 65,536-entry table makes every vector 256 KiB, so its cases are
// written by hand (gen_elementwise.go).
func basics() map[whg1.Opcode]*basic {
	r := pcg(1)
	small := func(n int) []int64 { return rnd(r, 1, 1, n, -3, 3).Data }
	one8 := chk(1, -8, 8)
	return map[whg1.Opcode]*basic{
		whg1.OpConv: {shapes: []tensor.Shape{sh(2, 4, 6)}, outs: []whg1.Tensor{der(2)},
			params: &whg1.Conv{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, RQ: rqPlain(2), W: small(36)}},
		whg1.OpRescale: {shapes: []tensor.Shape{sh(2, 4, 6)}, outs: []whg1.Tensor{der(2)},
			params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PreBias, MKind: 1, SKind: 1,
				Mult: []int64{3}, Shift: []uint8{1}, BiasV: []int64{1, -1}}}},
		whg1.OpChscale: {shapes: []tensor.Shape{sh(2, 4, 6)}, outs: []whg1.Tensor{der(2)},
			params:  &whg1.Chscale{NRows: 2, Round: whg1.HalfUp, Shift: 1, M: []int64{3, -5, 7, 2}},
			scalars: []whg1.Scalar{{Lo: 0, Hi: 1}}, values: []int64{1}},
		whg1.OpAdd: {shapes: []tensor.Shape{sh(2, 3, 5), sh(2, 3, 5)}, others: []whg1.Tensor{chk(2, -8, 8)},
			outs: []whg1.Tensor{der(2)}},
		whg1.OpConcat: {shapes: []tensor.Shape{sh(2, 3, 5), sh(1, 3, 5)}, others: []whg1.Tensor{one8},
			outs: []whg1.Tensor{der(3)}},
		whg1.OpChunkAdd:       {shapes: []tensor.Shape{sh(4, 3, 5)}, outs: []whg1.Tensor{der(2)}},
		whg1.OpSplit:          {shapes: []tensor.Shape{sh(4, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.Split{Start: 1, Count: 2}},
		whg1.OpPixelShuffle:   {shapes: []tensor.Shape{sh(4, 3, 5)}, outs: []whg1.Tensor{der(1)}, params: &whg1.Factor{N: 2}},
		whg1.OpPixelUnshuffle: {shapes: []tensor.Shape{sh(1, 4, 6)}, outs: []whg1.Tensor{der(4)}, params: &whg1.Factor{N: 2}},
		whg1.OpClamp:          {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.ClampParams{Lo: -3, Hi: 5}},
		whg1.OpRelu:           {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}},
		whg1.OpLeaky:          {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.Leaky{A: 3, F: 2}},
		whg1.OpPadRep:         {shapes: []tensor.Shape{sh(1, 3, 5)}, outs: []whg1.Tensor{der(1)}, params: &whg1.Factor{N: 4}},
		whg1.OpCropTo: {shapes: []tensor.Shape{sh(2, 4, 6), sh(1, 3, 5)}, others: []whg1.Tensor{one8},
			outs: []whg1.Tensor{der(2)}},
		whg1.OpMul: {shapes: []tensor.Shape{sh(2, 3, 5), sh(1, 3, 5)}, others: []whg1.Tensor{one8}, outs: []whg1.Tensor{der(2)},
			params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfUp, MKind: 2, SKind: 1, Mult: []int64{5, -3}, Shift: []uint8{2}}}},
		whg1.OpConvTranspose: {shapes: []tensor.Shape{sh(2, 3, 4)}, outs: []whg1.Tensor{der(1)},
			params: &whg1.ConvT{Cout: 1, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1, RQ: rqPlain(1), W: small(18)}},
		whg1.OpIGDN: {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)},
			params: &whg1.IGDN{GF: 4, Frac: 3, Gamma: []int64{9, 2, 3, 11}, Beta: []int64{5, 17}}},
		whg1.OpAbs: {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}},
		whg1.OpCrop: {shapes: []tensor.Shape{sh(2, 4, 6)}, outs: []whg1.Tensor{der(2)},
			params: &whg1.Crop{Y0: whg1.Operand{Value: 1}, H: whg1.Operand{Value: 2}, W: whg1.Operand{Value: 3}}},
		whg1.OpSubposSplit: {shapes: []tensor.Shape{sh(2, 4, 6)}, outs: []whg1.Tensor{der(2), der(2), der(2), der(2)},
			params: &whg1.Subpos{Order: [4]uint8{3, 0, 2, 1}}},
		whg1.OpSubposMerge: {shapes: []tensor.Shape{sh(1, 2, 3), sh(1, 2, 3), sh(1, 2, 3), sh(1, 2, 3)},
			others: []whg1.Tensor{one8, one8, one8}, outs: []whg1.Tensor{der(1)}, params: &whg1.Subpos{Order: [4]uint8{1, 3, 0, 2}}},
		whg1.OpFill:       {shapes: []tensor.Shape{sh(1, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.Fill{Value: -7}},
		whg1.OpLayerNormC: {shapes: []tensor.Shape{sh(3, 2, 3)}, outs: []whg1.Tensor{der(3)}, params: &whg1.LayerNorm{Eps: 1, Gamma: []int64{1 << 16, 3 << 15, -(1 << 14)}, Beta: []int64{0, 5, -5}}},
		whg1.OpL2Norm:     {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.L2Norm{Eps: 1}, h: 3, w: 5},
		whg1.OpSoftmax:    {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}, h: 3, w: 5},
		whg1.OpSigmoid:    {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}},
		whg1.OpElu:        {shapes: []tensor.Shape{sh(2, 3, 5)}, outs: []whg1.Tensor{der(2)}, params: &whg1.Elu{Alpha: 1000}},
		whg1.OpGram: {shapes: []tensor.Shape{sh(2, 3, 5), sh(2, 3, 5)}, others: []whg1.Tensor{chk(2, -8, 8)},
			outs: []whg1.Tensor{der(2)}, params: &whg1.Contraction{Groups: 1, RQ: rqPlain(1)}, h: 3, w: 5},
		whg1.OpApply: {shapes: []tensor.Shape{sh(2, 1, 2), sh(2, 3, 5)}, others: []whg1.Tensor{chk(2, -8, 8)},
			outs: []whg1.Tensor{der(2)}, params: &whg1.Contraction{Groups: 1, RQ: rqPlain(1)}},
	}
}

// genBasics writes, for every operator but lut16, the generic cases:
//   - §14.1 item 1: input 0 at each end of its range everywhere, and mixed;
//   - §14.1 item 5: input 0's check range at its ends and one past each;
//     the output's check range at the ends the outputs attain and one past
//     each; and input 0 with clamp, fed values past its range;
//   - §14.1 item 4: input 0's range at exactly i32's ends, and one past
//     each (acc64 only).
func genBasics(g *gen) {
	bs := basics()
	for _, code := range whg1.Opcodes {
		b := bs[code]
		if b == nil {
			continue
		}
		r := pcg(uint64(code) + 100)
		file := op(code)
		s := b.shapes[0]
		x := func(lo, hi int64, first, last int64) *tensor.T {
			t := rnd(r, s.C, s.H, s.W, lo, hi)
			t.Data[0], t.Data[len(t.Data)-1] = first, last
			return t
		}
		d := func(x0 *tensor.T) vectors.Decode { return dec(b.values, b.inputs(r, x0)...) }

		const lo, hi = -100, 300
		in := chk(uint32(s.C), lo, hi)
		g.add(file, fmt.Sprintf("%s_in_range_ends", code), b.graph(code, in), append([]vectors.Decode{d(x(lo, hi, lo, hi))}, b.corners(lo, hi)...)...)
		if sizes := planeSizes(code, b); sizes != nil {
			var ds []vectors.Decode
			for _, hw := range sizes {
				var ins []*tensor.T
				for i, s := range b.resized(code, hw[0], hw[1]) {
					rec := in
					if i > 0 {
						rec = b.others[i-1]
					}
					ins = append(ins, rnd(r, s.C, s.H, s.W, rec.Lo, rec.Hi))
				}
				ds = append(ds, dec(b.values, ins...))
			}
			g.add(file, fmt.Sprintf("%s_plane_1x1_and_odd_sizes", code), b.graph(code, in), ds...)
		}
		g.add(file, fmt.Sprintf("%s_check_in_ends_and_one_past", code), b.graph(code, in),
			d(x(lo, hi, hi, lo)), d(x(lo, hi, lo-1, hi)), d(x(lo, hi, lo, hi+1)))
		g.add(file, fmt.Sprintf("%s_clamp_in", code), b.graph(code, clp(uint32(s.C), lo, hi)),
			d(x(lo-50, hi+50, lo-1, hi+1)), d(x(lo, hi, i64min, i64max)))
		for _, rg := range [][2]int64{{i32min, i32max}, {i32min - 1, i32max}, {i32min, i32max + 1}} {
			g.add(file, fmt.Sprintf("%s_in_%s", code, ints(rg[0], rg[1])), b.graph(code, chk(uint32(s.C), rg[0], rg[1])),
				d(x(rg[0], rg[1], rg[0], rg[1])))
		}
		genOutputCheck(g, code, b, in, d(x(lo, hi, lo, hi)))
	}
}

// corners are decodes with every input constant at an end of its range,
// input 0 at lo or hi and the others at theirs, in every combination of
// input 0's end with the others' (all low, all high): the corner products
// of mul, gram and apply and the largest sums of igdn are attained (§14.1
// item 1).
func (b *basic) corners(lo, hi int64) []vectors.Decode {
	var ds []vectors.Decode
	for _, e0 := range []int64{lo, hi} {
		for _, top := range []bool{false, true} {
			ins := []*tensor.T{ten(b.shapes[0].C, b.shapes[0].H, b.shapes[0].W, e0)}
			for i, rec := range b.others {
				v, s := rec.Lo, b.shapes[i+1]
				if top {
					v = rec.Hi
				}
				ins = append(ins, ten(s.C, s.H, s.W, v))
			}
			ds = append(ds, dec(b.values, ins...))
			if len(b.others) == 0 {
				break
			}
		}
	}
	return ds
}

// planeSizes are the H×W a basic instance is also run at (§14.1 item 3):
// a 1×1 plane and odd sizes, where the operator's shape rule allows them
// with its basic parameters. pixel_unshuffle (r = 2) and subpos_split need
// even sides, and the basic crop a 2×3 window, so they have none here:
// their shape refusals are in gen_movement.go.
func planeSizes(code whg1.Opcode, b *basic) [][2]int {
	switch code {
	case whg1.OpPixelUnshuffle, whg1.OpSubposSplit, whg1.OpCrop:
		return nil
	}
	if b.h != 0 {
		return [][2]int{{1, 1}, {int(b.h), int(b.w)}} // declared sizes are odd (3×5)
	}
	return [][2]int{{1, 1}, {5, 7}, {1, 9}}
}

// resized is the basic instance's input shapes at H×W (apply's A keeps
// its [C, 1, d]).
func (b *basic) resized(code whg1.Opcode, h, w int) []tensor.Shape {
	out := make([]tensor.Shape, len(b.shapes))
	for i, s := range b.shapes {
		out[i] = sh(s.C, h, w)
		if code == whg1.OpApply && i == 0 {
			out[i] = s
		}
	}
	return out
}

// genOutputCheck gives output 0 a check range: first [min, max] of the
// values one decode produces with output 0 derived, so both ends are
// attained, then that range narrowed by one at each end, which refuses the
// same decode (field_range, §4 run step 4).
func genOutputCheck(g *gen, code whg1.Opcode, b *basic, in whg1.Tensor, d vectors.Decode) {
	probe := vectors.Vector{ID: "probe", Graph: whg1.Encode(b.graph(code, in)), Decodes: []vectors.Decode{d}}
	if err := Compute(&probe); err != nil {
		g.err = err
		return
	}
	if probe.Decodes[0].Refuse != "" {
		g.err = fmt.Errorf("%s: the output-check probe is refused: %s", code, probe.Decodes[0].Refuse)
		return
	}
	out := probe.Decodes[0].Outputs[0].Data
	lo, hi := out[0], out[0]
	for _, v := range out {
		lo, hi = min(lo, v), max(hi, v)
	}
	for _, rg := range [][2]int64{{lo, hi}, {lo + 1, max(hi, lo+1)}, {min(lo, hi-1), hi - 1}} {
		bb := *b
		bb.outs = append([]whg1.Tensor{}, b.outs...)
		bb.outs[0] = chk(b.outs[0].Channels, rg[0], rg[1])
		g.add(op(code), fmt.Sprintf("%s_check_out_%s", code, ints(rg[0], rg[1])), bb.graph(code, in),
			vectors.Decode{Inputs: d.Inputs, Scalars: d.Scalars})
	}
}
