package gen

import (
	"fmt"

	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genMovement, genScalars, genContractions) }

// genMovement is the shape rules of the movement operators (§5.10), at run
// time where a size can break them (§4 run step 3) and at load where only
// channel counts can (§10.5 step 7), plus the exponent rule of concat (§3).
func genMovement(g *gen) {
	r := pcg(6)
	n9 := chk(1, -9, 9)
	x := func(c, h, w int) vectors.Decode { return dec(nil, rnd(r, c, h, w, -9, 9)) }
	two := func(c1, h1, w1, c2, h2, w2 int) vectors.Decode {
		return dec(nil, rnd(r, c1, h1, w1, -9, 9), rnd(r, c2, h2, w2, -9, 9))
	}

	// concat: H and W must agree; the output past max_elems.
	cc := one(whg1.OpConcat, nil, []whg1.Tensor{n9, chk(2, -9, 9)}, []whg1.Tensor{der(3)}, 0, 0)
	g.add(op(whg1.OpConcat), "concat_plan_sizes_disagree", cc, two(1, 2, 3, 2, 2, 3), two(1, 2, 3, 2, 3, 3), two(1, 2, 3, 2, 2, 4))
	cc3 := one(whg1.OpConcat, nil, []whg1.Tensor{n9, n9, n9}, []whg1.Tensor{der(3)}, 0, 0)
	cc3.MaxElems = 10
	g.add(op(whg1.OpConcat), "concat_3_inputs_plan_output_past_max_elems10", cc3,
		dec(nil, ten(1, 1, 3, 1, 2, 3), ten(1, 1, 3, 4, 5, 6), ten(1, 1, 3, 7, 8, 9)),
		dec(nil, ten(1, 2, 2, 1), ten(1, 2, 2, 2), ten(1, 2, 2, 3)))
	ce := one(whg1.OpConcat, nil, []whg1.Tensor{exp(n9, 2), exp(n9, 2)}, []whg1.Tensor{exp(der(2), 1)}, 0, 0)
	g.add(op(whg1.OpConcat), "concat_load_exponents_2_2_1", ce)

	// split: start + count ≤ C, a channel rule.
	for _, sp := range [][2]uint32{{0, 4}, {3, 1}, {3, 2}} {
		g.add(op(whg1.OpSplit), fmt.Sprintf("split_start%d_count%d_of_4", sp[0], sp[1]),
			one(whg1.OpSplit, &whg1.Split{Start: sp[0], Count: sp[1]}, []whg1.Tensor{chk(4, -9, 9)}, []whg1.Tensor{der(sp[1])}, 0, 0),
			x(4, 1, 2))
	}

	// pixel_shuffle: C a multiple of r² is a channel rule; r = 1 is the
	// identity. Its output sides cannot pass 2^26: they are at most
	// 2^26 / r because the input's C ≥ r² and C·H·W ≤ 2^26.
	for _, c := range []struct{ c, r uint32 }{{9, 3}, {4, 1}, {8, 2}, {6, 2}} {
		g.add(op(whg1.OpPixelShuffle), fmt.Sprintf("pixel_shuffle_r%d_C%d", c.r, c.c),
			one(whg1.OpPixelShuffle, &whg1.Factor{N: c.r}, []whg1.Tensor{chk(c.c, -9, 9)}, []whg1.Tensor{der(c.c / (c.r * c.r))}, 0, 0),
			x(int(c.c), 2, 3))
	}
	// pixel_unshuffle: H and W multiples of r, at run time.
	pu := one(whg1.OpPixelUnshuffle, &whg1.Factor{N: 3}, []whg1.Tensor{n9}, []whg1.Tensor{der(9)}, 0, 0)
	g.add(op(whg1.OpPixelUnshuffle), "pixel_unshuffle_r3_plan_sizes", pu, x(1, 3, 6), x(1, 4, 6), x(1, 3, 5))
	g.add(op(whg1.OpPixelUnshuffle), "pixel_unshuffle_r1_plane_1x1_and_odd_sizes",
		one(whg1.OpPixelUnshuffle, &whg1.Factor{N: 1}, []whg1.Tensor{chk(2, -9, 9)}, []whg1.Tensor{der(2)}, 0, 0), x(2, 1, 1), x(2, 5, 7))

	// pad_rep: the output side past 2^26 (too_large, checked before the
	// shape rule), the output past max_elems; m = 1 and an exact multiple.
	pr := one(whg1.OpPadRep, &whg1.Factor{N: 1<<26 + 1}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0)
	g.add(op(whg1.OpPadRep), "pad_rep_m67108865_plan_side_past_2p26", pr, x(1, 1, 1))
	pr = one(whg1.OpPadRep, &whg1.Factor{N: 4}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0)
	pr.MaxElems = 16
	g.add(op(whg1.OpPadRep), "pad_rep_m4_plan_output_past_max_elems16", pr, x(1, 3, 3), x(1, 4, 4), x(1, 3, 5))
	for _, m := range []uint32{1, 3} {
		g.add(op(whg1.OpPadRep), fmt.Sprintf("pad_rep_m%d", m),
			one(whg1.OpPadRep, &whg1.Factor{N: m}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0), x(1, 3, 6), x(1, 1, 1), x(1, 2, 5))
	}

	// crop_to: ref's H′ ≤ H and W′ ≤ W, at run time.
	ct := one(whg1.OpCropTo, nil, []whg1.Tensor{chk(2, -9, 9), n9}, []whg1.Tensor{der(2)}, 0, 0)
	g.add(op(whg1.OpCropTo), "crop_to_plan_ref_larger", ct, two(2, 3, 4, 1, 3, 4), two(2, 3, 4, 1, 4, 4), two(2, 3, 4, 1, 3, 5))

	// subpos_split: H and W even; subpos_merge: the four inputs agree, and
	// the output past max_elems. Its output sides cannot pass 2^26 without
	// inputs of more than 2^25 rows, which the corpus does not carry.
	ss := one(whg1.OpSubposSplit, &whg1.Subpos{Order: [4]uint8{0, 1, 2, 3}}, []whg1.Tensor{n9},
		[]whg1.Tensor{der(1), der(1), der(1), der(1)}, 0, 0)
	g.add(op(whg1.OpSubposSplit), "subpos_split_plan_odd_sizes", ss, x(1, 2, 2), x(1, 3, 2), x(1, 2, 3))
	sm := one(whg1.OpSubposMerge, &whg1.Subpos{Order: [4]uint8{0, 1, 2, 3}}, []whg1.Tensor{n9, n9, n9, n9}, []whg1.Tensor{der(1)}, 0, 0)
	sm.MaxElems = 8
	four := func(h, w, h3, w3 int) vectors.Decode {
		return dec(nil, rnd(r, 1, h, w, -9, 9), rnd(r, 1, h, w, -9, 9), rnd(r, 1, h, w, -9, 9), rnd(r, 1, h3, w3, -9, 9))
	}
	g.add(op(whg1.OpSubposMerge), "subpos_merge_plan_sizes_disagree_and_past_max_elems8", sm,
		four(1, 2, 1, 2), four(1, 2, 2, 2), four(1, 2, 1, 1), four(2, 2, 2, 2))
	g.add(op(whg1.OpSubposMerge), "subpos_merge_load_order_not_a_permutation",
		one(whg1.OpSubposMerge, &whg1.Subpos{Order: [4]uint8{0, 1, 2, 2}}, []whg1.Tensor{n9, n9, n9, n9}, []whg1.Tensor{der(1)}, 0, 0))

	// mul: b of C or 1 channels (a channel rule), and sizes that agree.
	for _, cb := range []uint32{3, 1, 2} {
		gr := one(whg1.OpMul, &whg1.Rescale{RQ: rqPlain(0)}, []whg1.Tensor{chk(3, -9, 9), chk(cb, -9, 9)}, []whg1.Tensor{der(3)}, 0, 0)
		g.add(op(whg1.OpMul), fmt.Sprintf("mul_b_channels%d_plan_sizes", cb), gr,
			two(3, 2, 2, int(cb), 2, 2), two(3, 2, 2, int(cb), 2, 3))
	}

	// fill: its channels come from its record; the output past max_elems.
	fl := one(whg1.OpFill, &whg1.Fill{Value: i64min}, []whg1.Tensor{n9}, []whg1.Tensor{der(3)}, 0, 0)
	fl.MaxElems = 12
	g.add(op(whg1.OpFill), "fill_i64min_C3_plan_output_past_max_elems12", fl, x(1, 2, 2), x(1, 2, 3))
}

// genScalars is §14.1 item 5 for the operators that read scalars (chscale's
// row, crop's operands and fill's value): each scalar range at its ends and
// one past (field_range, §4 run step 2), a crop that does not fit its
// input, and the load checks on scalar ranges (chscale's rows, §5.4; a
// crop planned on declared sizes, §5.10).
func genScalars(g *gen) {
	r := pcg(7)
	n9 := chk(1, -9, 9)
	x := rnd(r, 1, 4, 5, -9, 9)

	cs := one(whg1.OpChscale, &whg1.Chscale{NRows: 3, Round: whg1.HalfEven, Shift: 1, M: []int64{3, -5, 7}}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0)
	cs.Scalars = []whg1.Scalar{{Lo: 0, Hi: 2}}
	g.add(op(whg1.OpChscale), "chscale_scalar_0_2_ends_and_one_past", cs,
		dec([]int64{0}, x), dec([]int64{2}, x), dec([]int64{-1}, x), dec([]int64{3}, x), dec([]int64{1}, x))
	cs.Scalars = []whg1.Scalar{{Lo: 0, Hi: 3}}
	g.add(op(whg1.OpChscale), "chscale_load_scalar_range_past_rows", cs)

	// crop with every operand a scalar: y0 ∈ [−1, 2], x0 ∈ [0, 3], h ∈ [1, 4], w ∈ [1, 5].
	sc := whg1.Operand{Scalar: true}
	cr := one(whg1.OpCrop, &whg1.Crop{Y0: sc, X0: whg1.Operand{Scalar: true, Value: 1}, H: whg1.Operand{Scalar: true, Value: 2},
		W: whg1.Operand{Scalar: true, Value: 3}}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0)
	cr.Scalars = []whg1.Scalar{{Lo: -1, Hi: 2}, {Lo: 0, Hi: 3}, {Lo: 1, Hi: 4}, {Lo: 1, Hi: 5}}
	g.add(op(whg1.OpCrop), "crop_scalars_ends_one_past_and_fit", cr,
		dec([]int64{0, 0, 1, 1}, x), dec([]int64{2, 3, 2, 2}, x), dec([]int64{0, 0, 4, 5}, x),
		dec([]int64{-2, 0, 1, 1}, x), dec([]int64{0, 4, 1, 1}, x), dec([]int64{0, 0, 0, 1}, x), dec([]int64{0, 0, 1, 6}, x),
		dec([]int64{-1, 0, 1, 1}, x), dec([]int64{2, 0, 3, 1}, x), dec([]int64{0, 3, 1, 3}, x),
		dec([]int64{0, 0, 1, 1}, ten(1, 1, 1, 4)))
	// Constant operands, planned at run time on an input too small.
	cc := one(whg1.OpCrop, &whg1.Crop{Y0: whg1.Operand{Value: 1}, X0: whg1.Operand{Value: 2}, H: whg1.Operand{Value: 2},
		W: whg1.Operand{Value: 3}}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 0, 0)
	g.add(op(whg1.OpCrop), "crop_const_1_2_2_3_plan", cc, dec(nil, x), dec(nil, rnd(r, 1, 3, 5, -9, 9)), dec(nil, rnd(r, 1, 3, 4, -9, 9)))
	// Planned at load on declared sizes (§5.10): the scalar length's top
	// min(hi, S − s0), then a constant that does not fit.
	cd := one(whg1.OpCrop, &whg1.Crop{Y0: whg1.Operand{Value: 1}, X0: sc, H: whg1.Operand{Scalar: true, Value: 1},
		W: whg1.Operand{Value: 5}}, []whg1.Tensor{n9}, []whg1.Tensor{der(1)}, 4, 5)
	cd.Scalars = []whg1.Scalar{{Lo: 0, Hi: 4}, {Lo: 1, Hi: 9}}
	g.add(op(whg1.OpCrop), "crop_declared_4x5_scalar_length_top_9", cd, dec([]int64{0, 3}, x), dec([]int64{0, 4}, x), dec([]int64{1, 1}, x))
	cd.Ops[0].Params = &whg1.Crop{Y0: whg1.Operand{Value: 1}, X0: sc, H: whg1.Operand{Scalar: true, Value: 1}, W: whg1.Operand{Value: 6}}
	g.add(op(whg1.OpCrop), "crop_load_declared_4x5_const_w6", cd)

	// fill from a scalar at the ends of i64, and one past a narrower range.
	fl := one(whg1.OpFill, &whg1.Fill{Scalar: true}, []whg1.Tensor{n9}, []whg1.Tensor{der(2)}, 0, 0)
	fl.Scalars = []whg1.Scalar{{Lo: i64min, Hi: i64max}}
	g.add(op(whg1.OpFill), "fill_scalar_i64_ends", fl, dec([]int64{i64min}, ten(1, 1, 2, 0)), dec([]int64{i64max}, ten(1, 2, 1, 0)))
	fl.Scalars = []whg1.Scalar{{Lo: i32min, Hi: i32max}}
	g.add(op(whg1.OpFill), "fill_scalar_i32_ends_and_one_past", fl,
		dec([]int64{i32min}, ten(1, 1, 2, 0)), dec([]int64{i32max}, ten(1, 1, 2, 0)),
		dec([]int64{i32min - 1}, ten(1, 1, 2, 0)), dec([]int64{i32max + 1}, ten(1, 1, 2, 0)))
}

// genContractions: gram's and apply's shape rules at run time (A and B
// agree; A is [C, 1, d]) and at load (C a multiple of groups; gram's sizes
// declared), with groups above 1.
func genContractions(g *gen) {
	r := pcg(8)
	n9 := chk(4, -9, 9)
	p := &whg1.Contraction{Groups: 2, RQ: whg1.RQ{Round: whg1.HalfUp, SKind: 1, Shift: []uint8{16}}}
	gr := one(whg1.OpGram, p, []whg1.Tensor{n9, n9}, []whg1.Tensor{der(4)}, 3, 4)
	two := func(h1, w1, h2, w2 int) vectors.Decode {
		return dec(nil, rnd(r, 4, h1, w1, -9, 9), rnd(r, 4, h2, w2, -9, 9))
	}
	g.add(op(whg1.OpGram), "gram_g2_half_up_shift16_plan_sizes", gr, two(3, 4, 3, 4), two(1, 1, 1, 1), two(3, 4, 2, 4))
	g.add(op(whg1.OpGram), "gram_load_no_declared_sizes", one(whg1.OpGram, p, []whg1.Tensor{n9, n9}, []whg1.Tensor{der(4)}, 0, 0))
	g.add(op(whg1.OpGram), "gram_load_groups3_C4",
		one(whg1.OpGram, &whg1.Contraction{Groups: 3, RQ: rqPlain(0)}, []whg1.Tensor{n9, n9}, []whg1.Tensor{der(4)}, 3, 4))
	g.add(op(whg1.OpApply), "apply_load_groups3_C4",
		one(whg1.OpApply, &whg1.Contraction{Groups: 3, RQ: rqPlain(0)}, []whg1.Tensor{n9, n9}, []whg1.Tensor{der(4)}, 0, 0))
	ap := one(whg1.OpApply, p, []whg1.Tensor{n9, n9}, []whg1.Tensor{der(4)}, 0, 0)
	g.add(op(whg1.OpApply), "apply_g2_half_up_shift16_plan_sizes", ap,
		dec(nil, rnd(r, 4, 1, 2, -9, 9), rnd(r, 4, 3, 5, -9, 9)),
		dec(nil, rnd(r, 4, 2, 2, -9, 9), rnd(r, 4, 3, 5, -9, 9)),
		dec(nil, rnd(r, 4, 1, 3, -9, 9), rnd(r, 4, 3, 5, -9, 9)))
}
